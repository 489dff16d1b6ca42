"""Lesson 12's concept question."""

import re
from fractions import Fraction
from itertools import combinations, product

from transformer_course.checking.failure import CheckFailure
from transformer_course.checking.quiz import Quiz, power_misreadings, quiz_check


# ======================================================================== concept question
def _mistyped_powers(powers) -> dict[Fraction, tuple[str, str]]:
    """The unit divisor's slips of each power (base, exponent) mistyped (:func:`power_
    misreadings`): {1 / the number divided by: (short name, what it counts)}; where two
    mistyped powers give the same divisor (10*6 = 2*30 = 60), both are named."""
    found: dict[Fraction, list[tuple[str, str]]] = {}
    for base, exponent in powers:
        for value, name, text in power_misreadings(base, exponent, "divides by"):
            if base == 10:
                text += "; and a MiB is 2**20 bytes (10**6 is a megabyte, MB)"
            found.setdefault(Fraction(1, value), []).append((name, text))
    return {
        key: (" or ".join(n for n, _ in slips), "; or ".join(t for _, t in slips))
        for key, slips in found.items()
    }


#: The answer is a product of factors; each factor's classic wrong values, with what each
#: counts. Every number one or two of these slips give is explained, and when several
#: slips give the same number, all of them are named: a wrong number alone cannot tell
#: them apart (blind10e-quiz-query-heads-no-kv-factor, 32 heads and keys or values only,
#: was told "4 bytes per number", the single slip that gives the same 384).
_CACHE_FACTORS = (  # (right value, {wrong value: (short name, what it counts)})
    (
        2,
        {
            1: (
                "keys or values, not both",
                "keys or values, not both: the cache holds the keys and the values, a factor of 2",
            )
        },
    ),
    (48, {32: ("32 layers", "32 layers (Llama 2 7B's), not this model's 48")}, "the 48 layers"),
    (
        8,
        {
            32: (
                "the 32 query heads",
                "the 32 query heads, not the 8 key/value heads: only the shared key/value "
                "heads are cached",
            ),
            4: ("the group size 4", "the group size (32 / 8 = 4), not the 8 key/value heads"),
            1: ("one key/value head", "one key/value head, not 8"),
        },
    ),
    (
        128,
        {
            4096: ("d_model 4096", "d_model = 4096 numbers per head, not d_head = 128"),
            # the family "d_head read as a width the heads share" (blind20c-quiz-cache-
            # d-head-split-over-kv-heads was told only "one key/value head")
            **{
                128 // heads: (
                    f"d_head / {heads} = {128 // heads}",
                    f"d_head = 128 split over the {heads} {kind} heads, {128 // heads} "
                    f"numbers each ({heads} times too small): d_head is already the width of each "
                    "head, 128 numbers per head, not a total the heads share",
                )
                for heads, kind in ((8, "key/value"), (32, "query"))
            },
        },
        "d_head = 128 (the numbers per head)",
    ),
    (
        1024,
        {
            1: ("one token", "one token, not 1024"),
            4096: ("4096 tokens", "4096 tokens (section 3's context), not 1024"),
            # blind18d-quiz-cache-per-thousand-tokens was told only "not right"
            1000: ("1000 tokens", "1000 tokens (per 1024 read as per thousand), not 1024"),
        },
    ),
    (
        2,
        {
            4: ("4 bytes", "4 bytes per number (float32); bfloat16 takes 2"),
            1: ("1 byte", "1 byte per number; bfloat16 takes 2"),
            16: ("16 bytes", "16 (bits) as bytes per number; bfloat16 takes 2 bytes"),
        },
    ),
    (
        Fraction(1, 2**20),
        {
            Fraction(1, 10**6): ("MB", "megabytes (MB, 10**6 bytes), not MiB (2**20 bytes)"),
            Fraction(1, 2**30): ("GiB", "GiB (2**30 bytes), not MiB (2**20)"),
            Fraction(1, 2**10): ("KiB", "KiB (2**10 bytes), not MiB (2**20)"),
            Fraction(1): ("bytes", "bytes, not MiB (divide by 2**20)"),
            # a power mistyped: with ^, Python's bitwise exclusive or
            # (blind14e-quiz-caret-as-power), or with one asterisk missing, a product
            # (blind29c-quiz-cache-memory-two-times-twenty, 2*20 = 40)
            **_mistyped_powers(((2, 20), (10, 6), (2, 30))),
        },
    ),
)


def _with_left_out(factors) -> list[tuple]:
    """The factors as (right value, wrong values), each factor given a label (a third
    element) also wrong when left out (its value replaced by 1: the whole family of "one
    factor forgotten", blind12e-quiz-one-layer), unless its table already has a 1."""
    out = []
    for value, wrongs, *label in factors:
        wrongs = dict(wrongs)
        if label and value != 1 and 1 not in wrongs:
            wrongs[1] = (
                f"{label[0]} left out",
                f"{label[0]} left out: a factor of {value} missing",
            )
        out.append((value, wrongs))
    return out


def _slips_why(factors, right_text: str, listed: int = 3) -> dict[float, str]:
    """``why`` for a numeric quiz whose answer is the product of ``factors`` (right value,
    {wrong value: (short name, what it counts)}): every number that one slip, or two at
    once, gives, with the slips that give it (single slips first, then up to ``listed``
    pairs)."""
    factors = _with_left_out(factors)
    right = Fraction(1)
    for value, _ in factors:
        right *= Fraction(value)
    found: dict[Fraction, tuple[list[str], list[str]]] = {}
    for count in (1, 2):
        for chosen in combinations(range(len(factors)), count):
            for wrongs in product(*(factors[i][1].items() for i in chosen)):
                number = right
                for i, (wrong, _) in zip(chosen, wrongs, strict=True):
                    number = number * Fraction(wrong) / Fraction(factors[i][0])
                if number == right:
                    continue  # two slips that cancel: the right number
                single, double = found.setdefault(number, ([], []))
                if count == 1:
                    single.append(wrongs[0][1][1])
                else:
                    double.append(" and ".join(f"({names[0]})" for _, names in wrongs))
    why: dict[float, str] = {float(right): right_text}
    for number, (single, double) in found.items():
        parts = ["That counts " + "; or ".join(single) + "."] if single else []
        if double:
            more = "; or other pairs" if len(double) > listed else ""
            parts.append(
                ("Or two slips at once: " if single else "That is two slips at once: ")
                + "; or ".join(double[:listed])
                + more
                + "."
            )
        why[float(number)] = " ".join(parts)
    return why


#: The unit slips a number can carry on top of another mistake: (factor, what it counts).
_UNIT_SLIPS = (
    (1, ""),
    (2, "it counts 4 bytes per number (float32); bfloat16 takes 2"),
    (2**20 / 10**6, "it is in megabytes (MB, 10**6 bytes), not MiB (2**20 bytes)"),
)

#: Numbers no product of the factors' slips gives: the queries cached with the keys and
#: values (blind13e-quiz-queries-cached-too, "not right" alone), 32 + 8 + 8 = 48 heads of
#: d_head numbers per token and layer where 2 x 8 = 16 are, three times the cache; alone
#: and with each unit slip.
_QUERIES_CACHED = {
    192 * 3 * unit: (
        "It counts the queries too: 32 query heads + 8 key heads + 8 value heads = 48 heads "
        "cached per layer and token, where only the keys and values are cached: 8 key heads "
        "+ 8 value heads = 16 (a third as many). The queries are never cached: each query is "
        "used once, at its own step, while every later step reads all the keys and values "
        "before it." + (f" And {slip}." if slip else "")
    )
    for unit, slip in _UNIT_SLIPS
}

#: The question compares the cache with plain multi-head attention's: the amount saved,
#: multi-head attention's cache (32 key/value heads, 768 MiB) minus this one's (192 MiB),
#: answers how much grouped-query attention saves, not how large its cache is
#: (blind19d-quiz-cache-memory-answers-the-saving, told only "the queries too", which gives
#: the same 576: both are named). Alone and with each unit slip.
_SAVING = {
    (768 - 192) * unit: (
        "It is the memory saved, not the cache's size: plain multi-head attention's cache (32 "
        "key/value heads, 768 MiB) minus this one's, 768 - 192 = 576 MiB. The question asks "
        "for the size of the cache itself, with its 8 key/value heads."
        + (f" And {slip}." if slip else "")
    )
    for unit, slip in _UNIT_SLIPS
}


_COUNT_WORDS = {2: "Two", 3: "Three", 4: "Four"}


def _merged_why(*tables: dict[float, str]) -> dict[float, str]:
    """The ``why`` tables as one; where several explain the same number (the answer
    alone cannot tell those mistakes apart), every explanation is kept, each one named."""
    texts: dict[float, list[str]] = {}
    for table in tables:
        for number, text in table.items():
            known = next((key for key in texts if abs(key - number) <= 1e-9 * abs(number)), None)
            texts.setdefault(number if known is None else known, []).append(text)
    return {
        number: found[0]
        if len(found) == 1
        else f"{_COUNT_WORDS.get(len(found), len(found))} mistakes give this number; look for "
        "each: " + " Or: ".join(f"({i}) {text}" for i, text in enumerate(found, 1))
        for number, found in texts.items()
    }


QUIZ_CACHE_MEMORY = Quiz(
    name="quiz_cache_memory",
    answer=192,
    why=_merged_why(
        _SAVING,
        _QUERIES_CACHED,
        _slips_why(
            _CACHE_FACTORS,
            "2 (keys and values) x 48 layers x 8 key/value heads x 128 x 1024 tokens x 2 "
            "bytes = 201,326,592 bytes = 192 MiB. With 32 key/value heads (plain multi-head "
            "attention) it would be four times as much.",
        ),
    ),
)
_check_cache_number = quiz_check(QUIZ_CACHE_MEMORY)
_NUMBER_WITH_UNIT = re.compile(r"^\s*([-+]?[\d_,]*\.?\d+(?:e[-+]?\d+)?)\s*([^\d\s].*?)\s*$", re.I)


def check_quiz_cache_memory(answer_function, *, hidden: bool = False) -> None:
    """Check the answer to the concept question quiz_cache_memory: the generic quiz check,
    but a string holding a number and its unit ("192 MiB",
    blind13e-quiz-string-with-unit, told only "return a number") is told to drop the
    unit."""
    try:
        _check_cache_number(answer_function, hidden=hidden)
    except CheckFailure as failure:
        try:
            given = answer_function()
        except Exception:  # it raised in the check already, whose message stands
            raise failure from None
        found = _NUMBER_WITH_UNIT.match(given) if isinstance(given, str) else None
        if found is None:
            raise
        raise CheckFailure(
            failure.exercise,
            f"quiz_cache_memory() returned the string {given!r}, a number with its unit "
            f"{found.group(2)!r}: return the number alone, an int or float such as "
            f"{found.group(1).replace(',', '').replace('_', '')}, not a str. Leave out the "
            "unit: the question fixes it (MiB), and the check compares numbers.",
        ) from None


check_quiz_cache_memory.quiz = QUIZ_CACHE_MEMORY  # what the generic tests read
