"""The :class:`Checker`: one exercise's checks, the learner's calls turned into teaching
messages, and the comparisons (type, shape, dtype before values)."""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import itertools
import math
import re
import time
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, get_args

import numpy as np

from transformer_course.checking.defaults import replayed_default
from transformer_course.checking.deviations import (
    Raised,
    Recorded,
    explained,
    frozen,
    reference_function,
    search_edits,
    structure,
    torch_state_kept,
)
from transformer_course.checking.deviations.probes import confirm, evidence, probe_calls
from transformer_course.checking.deviations.search import replay, same
from transformer_course.checking.empty_inputs import empty_input_hint
from transformer_course.checking.failing_line import (
    arguments_out_of_order,
    failing_line_values,
    in_place_on_line,
    pieces_of_an_argument,
    squeezed_arguments,
)
from transformer_course.checking.failure import (
    CheckFailure,
    code_after_placeholder,
    course_call_on_a_row,
    course_origin,
    learner_frames,
)
from transformer_course.checking.formatting import (
    as_numpy,
    candidates_message,
    clip,
    dtype_name,
    first_difference,
    ordinal,
    short,
)
from transformer_course.checking.hints import GENERIC_HINTS, Hint, matching_hints
from transformer_course.checking.kept_outside import rounded_up
from transformer_course.checking.kept_state import StateWatch, kept_state_sentence
from transformer_course.checking.layouts import match_layout
from transformer_course.checking.module_settings import (
    changed_settings_message,
    settings_snapshot,
)
from transformer_course.checking.parameters_kept import (
    changed_parameters_message,
    parameters_snapshot,
)
from transformer_course.checking.partial_slices import match_partial_slices
from transformer_course.checking.printed import printed_not_returned, tee_stdout
from transformer_course.checking.randomness import global_random_state, restore_random_state
from transformer_course.checking.rearranged import (
    kept_slice,
    merged_after_move,
    one_hot_of,
    one_hot_shaped,
    rejoined,
)
from transformer_course.checking.relations import first_wrong, match_relation
from transformer_course.checking.return_types import index_pair_note
from transformer_course.checking.sequence_relations import (
    collapsed_runs,
    cut_short,
    keys_as_strings,
)
from transformer_course.checking.size_one_axes import (
    NAMES_SIZE_ONE_AXIS,
    permuted_axes,
    size_one_axes,
)
from transformer_course.checking.snapshots import same_as_snapshot, snapshot

__all__ = ["Checker"]


#: the subjects of the general hints that an exercise's own hint may cover in its own
#: words: a math function given an array, np.vectorize, named_parameters' pairs
_API_NAMES = re.compile(r"\bmath\.\w+|\bnp\.vectorize\b|\bnamed_parameters\b")


def _close_but_nan_rows(got_np: np.ndarray, value: Any, tol: dict) -> bool:
    """``got_np`` equals the candidate ``value`` except on whole rows (last axis) where
    ``got_np`` is NaN and the candidate 0: the rows of queries left with no key, which the
    course's attention sets to 0 and a plain softmax turns into NaN."""
    try:
        value_np = as_numpy(value).astype(np.float64)
    except Exception:  # a candidate that is not numeric: no match
        return False
    if value_np.shape != got_np.shape or got_np.ndim < 1 or got_np.size == 0:
        return False
    nan = np.isnan(got_np)
    nan_rows = nan.all(axis=-1)  # (...,): rows wholly NaN
    if not nan_rows.any() or not np.array_equal(
        nan, np.broadcast_to(nan_rows[..., None], nan.shape)
    ):
        return False
    if not np.all(value_np[nan_rows] == 0):
        return False
    rest = ~nan_rows
    return bool(np.allclose(got_np[rest], value_np[rest], **tol))


def _same_subject(hint: str, others: list[str]) -> bool:
    """Whether an exercise's own hint already names an API the general ``hint`` names."""
    names = set(_API_NAMES.findall(hint))
    lead = hint.split(" ", 1)[0]
    if lead and not lead[0].isalnum() and any(o.split(" ", 1)[0] == lead for o in others):
        return True  # both open on one operator ("~ ..."): the exercise's own reading of it
    if "view/reshape cannot repeat entries" in hint or " keeps the number of entries" in hint:
        return any("reshape" in other for other in others)  # the exercise's own reading
    if "an in-place operation cannot grow" in hint:  # the exercise's own in-place reading
        return any("in-place operation" in other for other in others)
    return any(name in other for name in names for other in others)


#: a fallback message: what differs, and the largest difference with both values
_FALLBACK_LEAD = re.compile(
    r"^(?P<what>.*?) differs from the reference: "
    r"(?P<numbers>largest difference [^\n]*?\(yours [^)]*\))",
    re.DOTALL,
)


def _value_relation(got: Any, expected: Any) -> str:
    """For two dicts with the same keys and numbers as values (counts, say): the relation
    between their values (all 0, negated, scaled, shifted), or ""."""
    if not (isinstance(got, dict) and isinstance(expected, dict)) or set(got) != set(expected):
        return ""
    keys = list(expected)
    numbers = (int, float, np.integer, np.floating)
    values = [got[key] for key in keys] + [expected[key] for key in keys]
    if not all(isinstance(v, numbers) and not isinstance(v, bool) for v in values):
        return ""
    relation = match_relation(
        np.array([got[key] for key in keys], dtype=np.float64),
        np.array([expected[key] for key in keys], dtype=np.float64),
        rtol=0.0,
        atol=0.0,
    )
    return "" if relation is None else relation.message


def _uniform_mask(got: Any, expected: Any) -> str:
    """For a boolean mask that holds one value everywhere where the expected one does not:
    that fact, first (a condition that never, or always, holds)."""
    if not (hasattr(got, "dtype") and hasattr(expected, "dtype")):
        return ""
    got_np, exp_np = as_numpy(got), as_numpy(expected)
    if got_np.dtype != np.bool_ or exp_np.dtype != np.bool_ or got_np.size < 2:
        return ""
    if exp_np.all() or not exp_np.any():
        return ""
    if not got_np.any():
        return (
            "Your mask is False everywhere: nothing may attend to anything. The condition "
            "you built never holds; test it on one entry that should be True."
        )
    if got_np.all():
        return (
            "Your mask is True everywhere: nothing is masked. The condition you built always "
            "holds; test it on one entry that should be False."
        )
    return ""


def _merged_axes(got: tuple, shape: tuple) -> str:
    """When ``got`` is ``shape`` with one run of adjacent axes merged into one (the same
    entries, fewer axes: a reshape, view or flatten that combined them), say which; ""
    otherwise."""
    if not 0 < len(got) < len(shape):
        return ""
    run = len(shape) - len(got) + 1  # how many axes the merged one stands for
    for start in range(len(got)):
        if (
            got[:start] == shape[:start]
            and got[start + 1 :] == shape[start + run :]
            and got[start] == math.prod(shape[start : start + run])
            and all(n > 1 for n in shape[start : start + run])  # not a squeezed axis
        ):
            axes = shape[start : start + run]
            return (
                f"That is the expected shape with the {run} axes {axes} (axes {start} to "
                f"{start + run - 1}) merged into one of length {got[start]} (a reshape, view, "
                "flatten or concatenation combined them). Keep them as separate axes: if "
                "you merged them on purpose, to work on 2-D rows, reshape the result back to "
                "the expected shape before returning it. "
            )
    return ""


#: the most time the calls made again for an answer that keeps state may take, in all
_REPLAY_BUDGET_S = 0.5
#: a check's own message that already says state was kept between calls
_KEPT_SAID = re.compile(r"earlier call|between calls|from one call to the next", re.IGNORECASE)


class Checker:
    """Collects the checks for one exercise and reports on them.

    Use it as a context manager::

        with Checker("softmax", hidden=hidden) as c:
            got = c.call(softmax, x, axis=-1)
            c.expect_close(got, expected, "softmax(x)")

    On leaving the block the global random streams (``random``, ``np.random``,
    ``torch``) are put back as they were, and, if nothing failed, the success line
    is printed. ``hidden=True`` marks the hidden run (fresh inputs, more shapes);
    it only changes the success line.
    """

    def __init__(self, exercise: str, *, hidden: bool = False, explain_shapes: bool = True):
        self.exercise = exercise
        self.hidden = hidden
        #: name a shape that is the expected one with an axis of length 1 dropped or added,
        #: or with its axes in another order (checking.size_one_axes), unless the check's
        #: own hint for that shape already says so (a check may switch it off)
        self.explain_shapes = explain_shapes
        self.count = 0
        self.last_warnings: list[str] = []
        self._notes: list[str] = []
        self._random_state: tuple | None = None
        self._threads = 1
        self._watch = None
        #: what a call of a module did to its own parameters ("" while none changed them)
        self._changed_parameters = ""
        self._changed_settings = ""
        #: the tensors each earlier call of the answer returned (kept alive, so that their
        #: memory is never handed to a new tensor), and what a result returned again says
        self._earlier_results: list[tuple[str, list]] = []
        self._returned_again = ""
        #: the note for the last call of the answer, when it printed and returned None
        self._printed_not_returned = ""
        #: the learner's answer (set by require_callable), and every call made to it
        #: (arguments, random state, result): what the single-edit diagnosis replays
        self._answer: Any = None
        self.recorded: list[Recorded] = []
        self._deviations: tuple[int, list[str], int] | None = None
        self._default = ""
        self._built: dict[int, tuple] = {}
        #: the containers the answer (a function) can keep between calls, as they were
        #: before the check called it (checking.kept_state)
        self._state_watch: StateWatch | None = None

    def __enter__(self) -> Checker:
        import torch

        from transformer_course.checking.forbidden import watch_for

        self._random_state = global_random_state()
        # Checks compute on tiny tensors, where several threads only cost (10x under load).
        self._threads = torch.get_num_threads()
        torch.set_num_threads(1)
        self._watch = watch_for(self.exercise)  # its forbidden APIs, as the grader sees them
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        import torch

        torch.set_num_threads(self._threads)
        if self._random_state is not None:
            restore_random_state(self._random_state)
        if self._watch is not None:
            watch, self._watch = self._watch, None
            watch.close(self, ok=exc_type is None)
        if exc_type is None:
            if self._changed_settings:
                raise CheckFailure(self.exercise, self._changed_settings)
            self._replay_in_reverse()
            self.done()
        return False

    def _replay_in_reverse(self) -> None:
        """For an answer whose code can keep something between calls (a container it
        writes to, a global it assigns, a functools cache: read from the code, so other
        answers pay nothing): the check's calls made again, the last first. A cache keyed on
        part of the arguments answers a call with the result of whichever call filled it,
        so another order shows it; fails with :mod:`.kept_state`'s sentence when a call
        then goes wrong and is right with the state emptied."""
        watch = self._state_watch
        try:
            if watch is None or not watch.kept_anywhere() or len(self.recorded) < 2:
                return
            reference = reference_function(self.exercise)
            if reference is None or isinstance(reference, type):
                return
            calls = [call for call in self.recorded if not call.constructed][-12:]
        except Exception:
            return
        # the calls, the last first; then new calls that mix the arguments of two of them
        # (one argument of call j in call i, call j made just before): a cache keyed on
        # one argument answers with call j's result
        trials: list[tuple[Any, Recorded | None, str]] = [
            (call, None, "Called again in another order (the check's calls, the last first), ")
            for call in reversed(calls)
        ]
        for first, second in itertools.islice(itertools.permutations(calls, 2), 12):
            for position in range(min(len(first.args), len(second.args))):
                mixed = list(first.args)
                mixed[position] = second.args[position]
                if not any(same(tuple(mixed), call.args) for call in calls):
                    trials.append(
                        (
                            dataclasses.replace(first, args=tuple(mixed)),
                            second,
                            f"Called just after {self._call_repr(self._answer, second.args, second.kwargs)}, ",
                        )
                    )
        started = time.perf_counter()
        for call, before, order in trials[:40]:
            if time.perf_counter() - started > _REPLAY_BUDGET_S:
                return
            try:
                expected = replay(reference, call)
                if isinstance(expected, Raised):
                    continue
                if before is not None:
                    replay(self._answer, before)
                got = replay(self._answer, call)
                if same(got, expected):
                    continue
                ran, again = watch.replayed_without(lambda call=call: replay(self._answer, call))
                if not ran or isinstance(again, Raised) or not same(again, expected):
                    return
                places = [what for what, _ in watch.changed()]
                wrong = self._call_repr(self._answer, call.args, call.kwargs)
                message = kept_state_sentence(
                    places,
                    wrong,
                    order=" ".join(order.split()) + " ",
                    generators=watch.generators,
                )
            except Exception:  # the diagnosis must never hide the check's own verdict
                return
            raise CheckFailure(self.exercise, message)

    # ------------------------------------------------------------------ basics
    def fail(self, message: str, learner_traceback: str = "") -> None:
        if self._changed_parameters and "changed" not in message:
            message = f"{self._changed_parameters}\n{message}"
        if self._printed_not_returned and "None" in message:
            message = f"{message}\n{self._printed_not_returned}"
        if self._changed_settings and self._changed_settings not in message:
            message = f"{self._changed_settings}\n{message}"
        # state kept between calls: the replay that empties it names the place (said
        # first, the symptom after it); else a result handed out again, seen by its memory
        kept = "" if _KEPT_SAID.search(message) else self._kept_state()
        if kept:
            raise CheckFailure(self.exercise, f"{kept}\n{message}", learner_traceback)
        if self._returned_again and self._returned_again not in message:
            message = f"{self._returned_again}\n{message}"
        raise CheckFailure(self.exercise, self._with_deviation(message), learner_traceback)

    def _kept_state(self) -> str:
        """The sentence naming state the answer kept between calls, when a wrong call of
        it, made again with the containers the check's calls wrote to emptied, is right
        (:mod:`.kept_state`); "" otherwise, or on anything odd."""
        watch = self._state_watch
        try:
            if watch is None or not self.recorded or not watch.changed():
                return ""
            reference = reference_function(self.exercise)
            if reference is None or isinstance(reference, type):
                return ""
            calls = [call for call in self.recorded if not call.constructed]
            for index in range(len(calls) - 1, max(len(calls) - 4, -1), -1):
                call = calls[index]
                expected = replay(reference, call)
                if isinstance(expected, Raised) or same(call.result, expected):
                    continue
                ran, again = watch.replayed_without(lambda call=call: replay(self._answer, call))
                if not ran or isinstance(again, Raised) or not same(again, expected):
                    return ""
                earlier = ""
                for before in reversed(calls[:index]):
                    if same(before.args, call.args) and same(before.kwargs, call.kwargs):
                        continue
                    if same(call.result, replay(reference, before)):
                        earlier = self._call_repr(self._answer, before.args, before.kwargs)
                        break
                wrong = self._call_repr(self._answer, call.args, call.kwargs)
                places = [what for what, _ in watch.changed()]
                return kept_state_sentence(places, wrong, earlier, generators=watch.generators)
        except Exception:  # the diagnosis must never hide the check's own message
            return ""
        return ""

    def _with_deviation(self, message: str) -> str:
        """``message``, followed by the one edit of the reference that reproduces every
        result the learner's code gave this check, when there is exactly one: a fact
        established on all the inputs, where the message may say what one input showed.
        A fallback message ("differs from the reference: largest difference ...", which
        names no cause) gives the lead to that edit when two wrong results or more back
        it: the learner reads the cause first, and the numbers after it."""
        deviation = self.deviation()
        lead = _FALLBACK_LEAD.match(message)
        if not deviation and lead:  # a fallback: the second tier of edits, there only
            later = self.later_deviation()
            if later:
                return (
                    f"{lead['what']} is not what the reference gives. {later}\n({lead['numbers']}.)"
                )
        if not deviation or deviation in message:
            return message
        if self._default and re.search(r"\bdefault\b", message):
            return message  # the check's own reading of that default
        if self._default:  # established by calling the answer again: the cause, first
            if lead:
                return f"{lead['what']} is not what the reference gives. {deviation}\n({lead['numbers']}.)"
            return f"{deviation}\n{message}"
        if lead and self._deviation_is_backed():
            return (
                f"{lead['what']} is not what the reference gives. {deviation}\n({lead['numbers']}.)"
            )
        return f"{message}\n{deviation}"

    def _deviation_is_backed(self) -> bool:
        """Whether the one edit found reproduces two wrong results or more."""
        return self._deviations is not None and (
            len(self._deviations[1]) == 1 and self._deviations[2] >= 2
        )

    def ok(self) -> None:
        self.count += 1

    def note(self, message: str) -> None:
        """Tell the learner something worth knowing that is *not* a mistake (once)."""
        if message not in self._notes:
            self._notes.append(message)
            print(f"note ({self.exercise}): {message}")

    def probe(self, fn: Callable, *args, **kwargs) -> Any:
        """``fn(*args, **kwargs)`` on an input a diagnosis chose to tell candidates apart,
        recorded like a checked call when ``fn`` is the answer: the single-edit search
        (:meth:`deviation`) must then reproduce this result too, and an edit that only
        agrees on the checked inputs is not offered. The learner's exception propagates."""
        record = self._record(fn, args, kwargs)
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            if record is not None:
                record.result = Raised.of(exc)
                self.recorded.append(record)
            raise
        if record is not None:
            with contextlib.suppress(Exception, RecursionError):  # a value too deep to copy
                record.result = frozen(result)
                self.recorded.append(record)
        return result

    def deviation(self, candidates: bool = False) -> str:
        """The single edit of the reference that reproduces the learner's results on every
        call this check made to the answer (:mod:`.deviations`); with ``candidates``, the
        two or three edits these calls cannot tell apart; else ""."""
        if self._answer is None or not self.recorded:
            return ""
        count = len(self.recorded)
        if self._deviations is None or self._deviations[0] != count:
            reference = reference_function(self.exercise)
            sentences: list[str] = []
            wrong, inputs, errors_only = 0, count, False
            wrong_calls: list[Recorded] = []
            if reference is not None:
                try:
                    found = search_edits(reference, self.recorded)
                    variants, wrong_calls = found.variants, found.wrong_calls
                    wrong = evidence(wrong_calls) if wrong_calls else found.wrong
                    if variants and wrong_calls and (len(variants) > 1 or wrong < 2):
                        # few wrong results, or several edits: new inputs decide
                        with torch_state_kept():
                            probes = probe_calls(wrong_calls[0])
                            if probes:
                                variants, wrong_probes = confirm(reference, variants, probes)
                        if probes:
                            wrong = evidence([*wrong_calls, *wrong_probes])
                            inputs = count + len(probes)
                    sentences = list(dict.fromkeys(v.sentence for v in variants))
                    errors_only = bool(wrong_calls) and all(
                        isinstance(call.result, Raised) for call in wrong_calls
                    )
                except Exception:  # the diagnosis must never hide the check's own message
                    sentences = []
            self._deviations = (count, sentences, wrong, inputs, errors_only)
            # a keyword default that differs: the answer, called again with the argument
            # passed, gives the reference's results on every call it got wrong (which no
            # edit's sentence can say)
            self._default = ""
            if reference is not None and wrong:
                with contextlib.suppress(Exception):
                    self._default = replayed_default(
                        self._answer, reference, wrong_calls or self.recorded
                    )
        _, sentences, wrong, inputs, errors_only = self._deviations
        if self._default:
            return self._default
        if errors_only and len(sentences) == 1:  # an error many mistakes raise: a lead only
            return (
                f"The error your code raised is also what the correct code raises with one "
                f"change: it {sentences[0]}. Other mistakes raise it too: look there first."
            )
        if errors_only and 1 < len(sentences) <= 3:  # edits these inputs cannot part
            return (
                "The error your code raised is also what the correct code raises with one "
                "change, one of these (they raise the same on every input this check ran): "
                + "; or ".join(f"it {sentence}" for sentence in sentences)
                + ". Other mistakes raise it too: look there first."
            )
        return explained(sentences, inputs, candidates, wrong)

    def later_deviation(self) -> str:
        """The single edit of the second tier (one operation added to a value, see
        :mod:`.deviations.search`) that reproduces every result of the learner's, backed by
        two wrong results or more; "" otherwise. Asked only where the message would be a
        fallback: it never takes the place of a check's own reading."""
        if self._answer is None or not self.recorded:
            return ""
        reference = reference_function(self.exercise)
        if reference is None:
            return ""
        try:
            found = search_edits(reference, self.recorded, later=True)
        except Exception:  # the diagnosis must never hide the check's own message
            return ""
        variants, wrong, inputs = found.variants, found.wrong, len(self.recorded)
        if variants and found.wrong_calls and wrong < 2:  # one wrong result: new inputs decide
            try:
                with torch_state_kept():
                    probes = probe_calls(found.wrong_calls[0])
                    if probes:
                        variants, wrong_probes = confirm(reference, variants, probes)
                        wrong = evidence([*found.wrong_calls, *wrong_probes])
                        inputs += len(probes)
            except Exception:  # a probe that fails confirms nothing
                return ""
        sentences = list(dict.fromkeys(v.sentence for v in variants))
        if len(sentences) != 1 or wrong < 2:
            return ""
        return explained(sentences, inputs, True, wrong)

    def _errors_only(self) -> bool:
        """Whether the edit found rests on errors alone (no wrong value reproduced)."""
        return self._deviations is not None and self._deviations[4]

    def done(self) -> None:
        kind = "hidden" if self.hidden else "visible"
        print(f"✓ {self.exercise}: all {self.count} {kind} checks passed.")

    def require_callable(self, fn: Any, name: str | None = None) -> None:
        name = name or self.exercise
        if self._watch is not None and name == self.exercise:
            self._watch.answer(fn)  # its forbidden APIs, read from its cell as the grader does
        if name == self.exercise:
            self._answer = fn
            if self._state_watch is None and not self._module_exercise():
                with contextlib.suppress(Exception):
                    self._state_watch = StateWatch(fn)
        if not callable(fn):
            self.fail(
                f"expected `{name}` to be a function (or class), got {type(fn).__name__}. "
                "Did you overwrite it with a value in a later cell?"
            )

    # -------------------------------------------------------------------- calls
    def call(
        self,
        fn: Callable,
        *args: Any,
        call_repr: str | None = None,
        hints: Mapping[str, str] | Sequence[Hint] = (),
        unchanged: bool = True,
        mutation_hint: str = "",
        **kwargs: Any,
    ) -> Any:
        """Call the learner's code and turn any exception into a teaching message.

        * ``hints``: extra advice for errors whose text contains a key (or matching
          an exception type or predicate); :data:`GENERIC_HINTS` always apply.
        * ``unchanged``: fail if the call changed an argument in place (arrays,
          tensors, lists, dicts), with ``mutation_hint`` as advice.
        * Warnings the learner's code issues are shown on stdout instead of
          stderr: nbgrader scores any stderr output in a test cell as a failure.
        """
        call_repr = call_repr or self._call_repr(fn, args, kwargs)
        hint_list = list(hints.items()) if isinstance(hints, Mapping) else list(hints)
        snapshots = (
            [(name, value, snapshot(value)) for name, value in self._named_args(fn, args, kwargs)]
            if unchanged
            else []
        )
        record = self._record(fn, args, kwargs)
        parameters = parameters_snapshot(fn)
        settings = settings_snapshot(fn)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                with tee_stdout() as printed:
                    result = fn(*args, **kwargs)
            except NotImplementedError as exc:
                if str(exc).strip():  # a library's (torch: an op with no kernel for a dtype)
                    raise self._raised(exc, call_repr, hint_list) from exc
                if unreached := code_after_placeholder(exc):
                    raise CheckFailure(
                        self.exercise,
                        f"`{call_repr}` raised NotImplementedError: the placeholder line "
                        "`raise NotImplementedError()` is still in your code, above your "
                        f"answer, so it runs first and `{clip(unreached, 80)}` below it is "
                        "never reached. Delete the line `raise NotImplementedError()` (and "
                        "the `# YOUR CODE HERE` comment), run that cell, then run this test "
                        "cell again.",
                    ) from exc
                raise CheckFailure(
                    self.exercise,
                    f"`{call_repr}` raised NotImplementedError: this exercise is not "
                    "implemented yet. Replace the line `raise NotImplementedError()` "
                    "with your code, run that cell, then run this test cell again.",
                ) from exc
            except CheckFailure:
                raise
            except Exception as exc:
                if record is not None:
                    record.result = Raised.of(exc)
                    self.recorded.append(record)
                empty = empty_input_hint(exc, *self._argument_names_and_values(fn, args, kwargs))
                if empty:  # nothing to index: the loop-bound hints do not apply
                    raise self._raised(
                        exc, call_repr, [(IndexError, empty)], generic=False
                    ) from exc
                raise self._raised(
                    exc, call_repr, hint_list, arguments=self._named_args(fn, args, kwargs)
                ) from exc
        if record is not None:
            with contextlib.suppress(Exception, RecursionError):  # a value too deep to copy
                record.result = structure(result) if record.constructed else frozen(result)
                self.recorded.append(record)
        if fn is self._answer and not self._returned_again:
            with contextlib.suppress(Exception):  # a reading of the results: never in the way
                self._returned_again = self._result_returned_again(call_repr, result, args, kwargs)
        if fn is self._answer and self._module_exercise():  # built: how, for later calls
            with contextlib.suppress(Exception, RecursionError):
                self._built[id(result)] = (frozen(args), frozen(kwargs))
        #: the texts of the warnings the last call issued (numpy's "'where' used without
        #: 'out'" tells an uninitialised result apart from a formula's NaN)
        self.last_warnings = [str(warning.message) for warning in caught]
        for warning in caught:
            print(
                f"note: `{call_repr}` issued a {warning.category.__name__}: {clip(str(warning.message))}"
            )
        if parameters is not None and not self._changed_parameters:
            # said with the check's first failure (an exercise's own reading of changed
            # weights, which names them, comes first): the root of what fails after it
            self._changed_parameters = changed_parameters_message(fn, parameters, call_repr)
        self._printed_not_returned = (
            printed_not_returned(printed.text) if result is None and fn is self._answer else ""
        )
        if settings is not None and not self._changed_settings:
            # a setting that forward wrote: every later call differs, though this one and a
            # fresh module's may be right; said with the first failure, or at the end
            self._changed_settings = changed_settings_message(fn, settings, call_repr)
        for name, value, recorded in snapshots:
            if not same_as_snapshot(value, recorded):
                reshaped = _reshaped_in_place(value, recorded, str(name).strip("`"))
                self.fail(
                    f"`{call_repr}` changed its argument {name} in place{reshaped}. The "
                    "caller's data must stay as it was: compute into a new array or tensor "
                    "(e.g. `x = x - m` rather than `x -= m`, no `x[...] = ...`, no `.append` "
                    f"on a list you were given). {mutation_hint}".strip()
                )
        return result

    def _partial_slices(self, got_np, exp_np, rtol, atol, untouched, axes):
        """:func:`.partial_slices.match_partial_slices` with the input a step left unchanged:
        ``untouched`` as the check gave it, else each argument of the last call that has
        the result's shape, by its name."""
        given = [("the input", _plain(untouched))] if untouched is not None else []
        if not given:
            given = [
                (f"exactly the {name} you were given", _plain(value))
                for name, value in self._last_arguments()
                if tuple(getattr(value, "shape", ())) == got_np.shape
            ] or [("the input", None)]
        for name, value in given[:4]:
            partial = match_partial_slices(
                got_np,
                exp_np,
                rtol=rtol,
                atol=atol,
                untouched=value,
                axes=axes,
                untouched_name=name,
            )
            if partial is not None:
                return partial
        return None

    def _last_arguments(self) -> list[tuple[str, Any]]:
        """(name, value) of the arguments of the last recorded call of the answer (or of a
        module built from it); [] when there is none."""
        try:
            call = self.recorded[-1]
            names = [f"argument {index}" for index in range(len(call.args))]
            target = call.target if call.target is not None else self._answer
            with contextlib.suppress(Exception):
                signature = inspect.signature(getattr(target, "forward", target))
                parameters = [p for p in signature.parameters if p != "self"]
                names = [f"`{name}`" for name in parameters[: len(call.args)]] + names[
                    len(parameters) :
                ]
            return [*zip(names, call.args, strict=False), *call.kwargs.items()]
        except Exception:
            return []

    def _result_returned_again(self, call_repr: str, result: Any, args: tuple, kwargs) -> str:
        """When this call of a function answer returned the very tensors (the same memory)
        an earlier call with other arguments returned, and not a view of an argument:
        a result kept from one call to the next (a memo keyed on too little), said with
        the check's first failure; "" otherwise. Module answers keep state by design."""
        import torch

        if self._module_exercise():
            return ""
        parts = list(result) if isinstance(result, tuple | list) else [result]
        tensors = [t for t in parts if isinstance(t, torch.Tensor) and t.numel() > 0]
        if not tensors:
            return ""
        memory = {t.untyped_storage().data_ptr() for t in tensors}
        inputs = [*args, *kwargs.values()]
        inputs += [i for value in list(inputs) if isinstance(value, tuple | list) for i in value]
        passed = {
            value.untyped_storage().data_ptr()
            for value in inputs
            if isinstance(value, torch.Tensor) and value.numel() > 0
        }
        found = ""
        for earlier_repr, earlier in self._earlier_results:
            if earlier_repr != call_repr and memory & {
                t.untyped_storage().data_ptr() for t in earlier
            }:
                found = earlier_repr
                break
        if len(self._earlier_results) < 256:  # bounded: a check's first calls suffice
            self._earlier_results.append((call_repr, tensors))
        if not found or memory & passed:
            return ""
        return (
            f"`{call_repr}` returned the very tensor that `{found}` returned earlier (the "
            "same memory, not a copy): your function keeps a result from one call to the "
            "next (a cache or a memo in a global, a default argument or an attribute, keyed "
            "on less than every argument) and hands it out again for other arguments. "
            "Compute the result anew at every call (a cache must be keyed on every argument "
            "and its randomness, and return a copy)."
        )

    def _module_exercise(self) -> bool:
        """Whether the exercise's reference is a class (its answer is then called to build
        modules, and the modules are called), read from the reference: in the grader the
        answer is a stand-in, not a class."""
        return isinstance(reference_function(self.exercise), type)

    def _record(self, fn: Callable, args: tuple, kwargs: Mapping) -> Recorded | None:
        """A record of this call for the single-edit diagnosis: a call of the answer, or
        of a module built from the answer class (with its constructor's arguments, its
        weights and its mode); None for any other call."""
        try:
            return self._recorded_call(fn, args, kwargs)
        except (Exception, RecursionError):  # arguments too deep to copy: not recorded
            return None

    def _recorded_call(self, fn: Callable, args: tuple, kwargs: Mapping) -> Recorded | None:
        answer = self._answer
        if answer is None:
            return None
        if fn is answer and not self._module_exercise():
            return Recorded(
                frozen(args), frozen(dict(kwargs)), global_random_state(), target=answer
            )
        if fn is answer:  # a module built: what its __init__ decides is a result too
            return Recorded(
                frozen(args),
                frozen(dict(kwargs)),
                global_random_state(),
                built=(frozen(args), frozen(dict(kwargs))),
                constructed=True,
            )
        if id(fn) in self._built:  # a module built from the answer (the grader's stand-in too)
            try:
                state = frozen(dict(fn.state_dict()))
            except Exception:
                return None
            return Recorded(
                frozen(args),
                frozen(dict(kwargs)),
                global_random_state(),
                built=self._built[id(fn)],
                state=state,
                training=bool(getattr(fn, "training", False)),
                target=fn,
            )
        return None

    def _raised(
        self,
        exc: Exception,
        call_repr: str,
        hint_list: list,
        generic: bool = True,
        arguments: list[tuple[str, Any]] = (),
    ) -> CheckFailure:
        """The failure for an exception the learner's code raised (with its hints; the
        generic ones too unless ``generic`` is False)."""
        advice = matching_hints(exc, hint_list)
        own = bool(advice)  # the exercise's own reading of its error
        if generic:  # the general advice, unless the exercise's own says the same thing
            advice += [
                hint
                for hint in matching_hints(exc, GENERIC_HINTS.items())
                if hint not in advice and not _same_subject(hint, advice)
            ]
        in_place = ""
        with contextlib.suppress(Exception):  # a reading of the line: never in the way
            in_place = in_place_on_line(exc)
        if in_place:  # the line's own in-place call, named: said first
            advice.insert(0, in_place)
        out_of_order = arguments_out_of_order(exc)
        if out_of_order:  # the line's own call, read against its signature: said first
            advice.insert(0, out_of_order)
        pieces = ""
        with contextlib.suppress(Exception):  # a reading of frames: never in the way
            pieces = pieces_of_an_argument(exc, list(arguments)) if arguments else ""
        if pieces:  # an argument cut along another axis than its features: said first
            advice.insert(0, pieces)
        squeezed = squeezed_arguments(exc, list(arguments)) if arguments else ""
        if squeezed:  # an argument that lost its size-1 axes on the way: said first
            advice.insert(0, squeezed)
        origin = course_origin(exc)
        if origin:
            advice.append(
                f"The error was raised inside the course's own code ({origin}), "
                "called by yours: your code handed it something outside its "
                "contract (the message above says what)."
            )
            with contextlib.suppress(Exception):  # a reading of frames: never in the way
                if per_row := course_call_on_a_row(exc):
                    advice.append(per_row)
        deviation = self.deviation(candidates=not advice)
        if own and self._errors_only():  # the check's own advice on its error comes first
            deviation = ""
        values = failing_line_values(exc)
        message = (
            f"calling `{call_repr}` raised {type(exc).__name__}: {clip(str(exc), 1000)}"
            + "".join(f"\n{text}" for text in [*advice, values, deviation] if text)
        )
        # a replay with the kept state emptied did not raise: the cause, said first
        kept = "" if _KEPT_SAID.search(message) else self._kept_state()
        return CheckFailure(
            self.exercise, f"{kept}\n{message}" if kept else message, learner_frames(exc)
        )

    @classmethod
    def _argument_names_and_values(cls, fn: Callable, args: tuple, kwargs: Mapping):
        """The call's arguments as (names, values), named after the parameters if possible."""
        named = cls._named_args(fn, args, kwargs)
        return [name.strip("`") for name, _ in named], [value for _, value in named]

    @staticmethod
    def _named_args(fn: Callable, args: tuple, kwargs: Mapping) -> list[tuple[str, Any]]:
        """(description, value) for every argument, named after the parameter if possible."""
        positional = [(f"(the {ordinal(i + 1)} one)", value) for i, value in enumerate(args)]
        fallback = positional + [(f"`{key}`", value) for key, value in kwargs.items()]
        target = getattr(fn, "forward", fn) if hasattr(fn, "parameters") else fn  # a module
        try:
            signature = inspect.signature(target)
            bound = signature.bind(*args, **kwargs)
        except (TypeError, ValueError):
            return fallback
        named = []
        for name, value in bound.arguments.items():
            kind = signature.parameters[name].kind
            if kind is inspect.Parameter.VAR_POSITIONAL:
                return fallback
            if kind is inspect.Parameter.VAR_KEYWORD:
                named += [(f"`{key}`", item) for key, item in value.items()]
            else:
                named.append((f"`{name}`", value))
        return named

    @staticmethod
    def _call_repr(fn: Callable, args: tuple, kwargs: Mapping) -> str:
        name = getattr(fn, "__name__", type(fn).__name__)
        parts = [short(a, 60) for a in args] + [f"{k}={short(v, 60)}" for k, v in kwargs.items()]
        return f"{name}({', '.join(parts)})"

    # ------------------------------------------------------------ structure
    def expect_type(
        self, value: Any, types: type | tuple[type, ...], what: str, hint: str = ""
    ) -> None:
        if not isinstance(value, types):
            # a tuple of types, a union (tuple | list), or one type
            members = types if isinstance(types, tuple) else get_args(types) or (types,)
            names = " or ".join(getattr(t, "__name__", str(t)) for t in members)
            if value is None:
                hint = (
                    self._none_on_this_call_only()
                    or "The function returned nothing: it has no return statement (or a bare "
                    "`return`), or the result was computed into a variable that is never "
                    "returned. Did you forget the `return` statement?"
                ) + f" {hint}"
                self.fail(f"{what} should be a {names}, but it is None. {hint}".strip())
            if pair := index_pair_note(value):  # x.max(dim=-1) for a tensor
                hint = f"{pair} {hint}".strip()
            hint = hint or self.deviation()
            self.fail(
                f"{what} should be a {names}, but it is a {type(value).__name__}. {hint}".strip()
            )
        self.ok()

    def _none_on_this_call_only(self) -> str:
        """When the answer returned None on its last call but a value on an earlier one of
        this check: the `return` is not missing, one path ends without a value (a bare
        `return` for an empty input, say); "" otherwise (or when the calls were not
        recorded)."""
        calls = [r for r in self.recorded if not r.constructed]
        if len(calls) < 2 or calls[-1].result is not None:
            return ""
        if all(r.result is None or isinstance(r.result, Raised) for r in calls[:-1]):
            return ""
        values = [*calls[-1].args, *calls[-1].kwargs.values()]
        empty = [v for v in values if _is_empty(v)]
        if empty:
            return (
                "Your code returned None for this empty input, where it returned a value "
                "on this check's earlier calls: the path taken for an empty input ends "
                "without a value (a bare `return`, as in `if len(ids) == 0: return`, or a "
                "branch with no return at all). Return an empty result of the same kind "
                "there, or drop the special case if the general code already handles it."
            )
        return (
            "Your code returned None for this input, where it returned a value on this "
            "check's earlier calls: the `return` is there, but the path this input takes ends without a value (a "
            "bare `return`, or an if/else branch with no return)."
        )

    def expect_shape(
        self,
        value: Any,
        shape: Iterable[int],
        what: str,
        hint: str = "",
        *,
        expected: Any = None,
        axes: Sequence[str] | None = None,
    ) -> None:
        """``expected`` (the right value, optional): when the learner's value holds its
        numbers joined along another axis, or only a slice of them, that is said first
        (:func:`~transformer_course.checking.rearranged.rejoined`, :func:`kept_slice`;
        ``axes`` names the axes)."""
        shape = tuple(shape)
        got = tuple(getattr(value, "shape", np.shape(value)))
        if got != shape:
            if expected is not None:
                with contextlib.suppress(Exception):  # values from a sandbox: plain tensors
                    found = (
                        rejoined(value, expected, axes)
                        or kept_slice(value, expected, axes)
                        or merged_after_move(value, expected, axes)
                        or one_hot_of(value, expected, axes)
                    )
                    if found:
                        hint = f"{found} {hint}".strip()
            if "one-hot" not in hint:
                with contextlib.suppress(Exception):  # values from a sandbox: plain tensors
                    hint = f"{one_hot_shaped(value, shape)} {hint}".strip()
            merged = _merged_axes(got, shape)
            if not merged and self.explain_shapes:
                merged = (
                    "" if NAMES_SIZE_ONE_AXIS.search(hint) else size_one_axes(got, shape)
                ) or (
                    "" if re.search(r"transpos|swap", hint) else permuted_axes(got, shape)
                )  # unless the check's own hint names it
            # a size rounded up is said before the check's own hint (which reads the
            # shape as another mistake's)
            rounded = "" if merged else _rounded_up_axis(got, shape)
            merged = merged or rounded
            if not (merged or hint):  # a shape the check cannot explain
                hint = self.deviation()
            self.fail(
                f"{what} should have shape {shape}, but it has shape {got}. {merged}{hint}".strip()
            )
        self.ok()

    def expect_dtype(self, value: Any, dtype: Any, what: str, hint: str = "") -> None:
        got = value.dtype
        ok = got == dtype
        if not ok and isinstance(dtype, type | np.dtype | str):
            with contextlib.suppress(TypeError):
                ok = np.dtype(got) == np.dtype(dtype)
        if not ok:
            self.fail(f"{what} should have dtype {dtype}, but it has dtype {got}. {hint}".strip())
        self.ok()

    def expect_floating(
        self, value: Any, what: str, preferred: Any = None, expected: Any = None
    ) -> None:
        """Any floating-point dtype is accepted (the concept does not fix one). When it
        differs from ``preferred``, the learner gets a note (once per dtype), not a failure.
        With ``expected`` (the right values), an integer result that holds them cut to
        whole numbers is told how (truncated toward zero, rounded, or rounded down)."""
        name = dtype_name(value.dtype)
        floating = getattr(value.dtype, "is_floating_point", None)
        if floating is None:
            floating = np.issubdtype(np.dtype(value.dtype), np.floating)
        if not floating:
            self.fail(
                f"{what} should hold floating-point numbers, but its dtype is {name}. "
                + (
                    _whole_numbers_of(value, expected)
                    or "Integer (or bool) results lose the fractions: create the result as a "
                    "float array or tensor."
                )
            )
        if preferred is not None and name != dtype_name(preferred):
            self.note(
                f"your result is {name}; the reference gives {dtype_name(preferred)}. That is "
                "fine here: values are compared with a tolerance that fits your dtype."
            )
        self.ok()

    def expect_integer_dtype(self, value: Any, what: str) -> None:
        if not np.issubdtype(as_numpy(value).dtype, np.integer):
            tensor = type(value).__module__.startswith("torch")  # torch needs no import here
            self.fail(
                f"{what} should hold integers (token ids), but its dtype is {value.dtype}. "
                + (
                    "Pass `dtype=torch.long` (or another integer type) when you create the "
                    "tensor: torch.zeros, torch.empty and torch.tensor of floats make float32, "
                    "and writing ids into such a tensor (or concatenating one) turns them into "
                    "floats."
                    if tensor
                    else "Pass `dtype=np.int64` (or another integer type) when you create the "
                    "array."
                )
            )
        self.ok()

    # ---------------------------------------------------------------- values
    def expect_equal(
        self,
        got: Any,
        expected: Any,
        what: str,
        hint: str | Callable[[], str] = "",
        mistakes: Mapping[str, Any] | None = None,
        pairs: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
    ) -> None:
        """Exact equality (lists, dicts, ints, integer and bool arrays or tensors).

        ``mistakes`` maps a diagnosis to the value that mistake gives (or a
        zero-argument callable computing it); the one ``got`` equals is reported, or all of
        them when several do (these inputs cannot tell them apart).
        ``pairs`` does the same for two mistakes made at once (see
        :func:`~transformer_course.checking.layers.mistake_pairs`); tried only when no
        single mistake matches, and reported only when exactly one pair matches.
        ``hint`` may be a callable, evaluated only when nothing else explains the value.
        """
        if self._equal(got, expected):
            self.ok()
            return
        found = self._matching(mistakes, lambda value: self._equal(got, value))
        if found:
            self.fail(
                f"{what} returned {short(got)}, expected {short(expected)}. {candidates_message(found)}"
            )
        both = self._matching(pairs, lambda value: self._equal(got, value))
        if len(both) == 1:
            self.fail(f"{what} returned {short(got)}, expected {short(expected)}. {both[0]}")
        hint = hint() if callable(hint) else hint  # (fail() adds the one edit that fits)
        hint = hint or self.deviation(candidates=True)
        relation = (
            collapsed_runs(got, expected)
            or cut_short(got, expected)
            or keys_as_strings(got, expected)
            or _value_relation(got, expected)
        )
        parts = (first_difference(got, expected), _uniform_mask(got, expected), relation, hint)
        advice = " ".join(part for part in parts if part)
        self.fail(f"{what} returned {short(got)}, expected {short(expected)}. {advice}".strip())

    @staticmethod
    def _equal(got: Any, expected: Any) -> bool:
        if isinstance(expected, np.ndarray) or hasattr(expected, "detach"):
            if not (isinstance(got, np.ndarray) or hasattr(got, "detach")):
                return False
            got_np, exp_np = as_numpy(got), as_numpy(expected)
            return got_np.shape == exp_np.shape and bool(np.array_equal(got_np, exp_np))
        try:
            return bool(got == expected)
        except (ValueError, TypeError, RuntimeError):
            return False

    @staticmethod
    def _matching(candidates: Any, matches: Callable[[Any], bool]) -> list:
        """The messages of ``candidates`` (message -> value or zero-argument callable; or
        a zero-argument callable giving that mapping) whose value ``matches``."""
        if callable(candidates):  # computed only when needed
            candidates = candidates()
        found: list[str] = []
        for message, wrong in (candidates or {}).items():
            value = wrong() if callable(wrong) else wrong
            if value is not None and matches(value) and message not in found:
                found.append(message)
        return found

    def expect_close(
        self,
        got: Any,
        expected: Any,
        what: str,
        *,
        rtol: float = 1e-5,
        atol: float = 1e-6,
        hint: str | Callable[[], str] = "",
        mistakes: Mapping[str, Any] | None = None,
        explain: Callable[[], str] | None = None,
        pairs: Mapping[str, Any] | Callable[[], Mapping[str, Any]] | None = None,
        axes: Sequence[str] | None = None,
        num_heads: int | None = None,
        narrow: Callable[[list[str]], list[str]] | None = None,
        untouched: Any = None,
    ) -> None:
        """Numerical closeness; shapes must already have been checked.

        ``mistakes`` maps a diagnosis ("did you scale by d_model instead of
        d_k?") to the value that mistake would produce (or a zero-argument
        callable computing it, or None when it cannot happen here). The one the
        learner's value matches is reported, or all of them when several match. ``hint`` may be a callable,
        evaluated only when no mistake matches. ``explain``, evaluated next, returns a
        diagnosis made from more than the value (a replay of the learner's steps, say)
        or ""; a diagnosis replaces the "largest difference" report. ``pairs`` (two
        mistakes at once) is tried when no single mistake matches, and reported only when
        exactly one pair matches. Last, when the value is the reference's numbers in
        another arrangement (a transpose, heads split or merged without a transpose,
        halves and interleaved pairs, reversed or shifted by one), that layout is named
        (:func:`~transformer_course.checking.layouts.match_layout`; ``axes`` names the
        axes in the glossary's symbols, ``num_heads`` enables the head layouts).
        ``narrow(found)``, when several mistakes match, keeps those that also fit extra
        inputs chosen to tell them apart (:mod:`.tie_breaking`); an empty answer, or one
        that raises, keeps them all. After ``explain``, a value right on some indices of
        one axis and all zeros, a copy of a right index or ``untouched`` (the input the step
        transforms, when given) on the others is named as a step applied to part of that
        axis (:func:`~transformer_course.checking.partial_slices.match_partial_slices`).
        """
        got_np = as_numpy(got).astype(np.float64)
        exp_np = as_numpy(expected).astype(np.float64)
        if got_np.shape != exp_np.shape:
            self.fail(f"{what} should have shape {exp_np.shape}, but it has shape {got_np.shape}.")
        if np.allclose(got_np, exp_np, rtol=rtol, atol=atol, equal_nan=True):
            self.ok()
            return
        # the floor of atol shrinks with small values (learning rates are ~1e-4): an
        # absolute 1e-5 there would let every candidate "match"
        finite = np.abs(exp_np[np.isfinite(exp_np)])
        scale = min(1.0, float(finite.max())) if finite.size else 1.0
        pair_tol = {"rtol": max(rtol, 1e-4), "atol": max(atol, 1e-5 * scale)}
        found = self._matching(
            mistakes,
            lambda value: (
                as_numpy(value).shape == got_np.shape
                and bool(
                    np.allclose(
                        got_np, as_numpy(value).astype(np.float64), equal_nan=True, **pair_tol
                    )
                )
            ),
        )
        nan_rows_note = ""
        if not found and np.isnan(got_np).any():
            # a mistake that leaves some query no key to attend to: the course's attention
            # gives that row 0, a softmax of the learner's own gives it NaN (0 / 0)
            found = self._matching(
                mistakes, lambda value: _close_but_nan_rows(got_np, value, pair_tol)
            )
            if found:
                nan_rows_note = (
                    " (Some of your rows are NaN: with this mistake those queries may "
                    "attend to no key at all, and a softmax over nothing but -inf is 0 / 0.)"
                )
        if len(found) > 1 and narrow is not None:
            try:
                found = narrow(list(found)) or found
            except Exception:  # a probe of the learner's code: the candidates stand
                pass
        if found:
            self.fail(
                f"{what} is not what the reference gives. {candidates_message(found)}"
                f"{nan_rows_note}"
            )

        def close(value) -> bool:
            value_np = as_numpy(value).astype(np.float64)
            return value_np.shape == got_np.shape and bool(
                np.allclose(got_np, value_np, equal_nan=True, **pair_tol)
            )

        both = self._matching(pairs, close)
        if len(both) == 1:
            self.fail(f"{what} is not what the reference gives. {both[0]}")
        diagnosis = explain() if explain is not None else ""
        if diagnosis:
            self.fail(f"{what} is not what the reference gives. {diagnosis}")
        partial = self._partial_slices(got_np, exp_np, rtol, atol, untouched, axes)
        if partial is not None:
            self.fail(f"{what} is not what the reference gives. {partial.message}")
        layout = match_layout(got_np, exp_np, axes, rtol=rtol, atol=atol, num_heads=num_heads)
        if layout is not None:  # (fail() adds the one edit of the reference that fits)
            self.fail(f"{what} is not what the reference gives. {layout.message}")
        hint = hint() if callable(hint) else hint
        relation = match_relation(got_np, exp_np, rtol=rtol, atol=atol)
        if relation is not None:
            self.fail(f"{what} is not what the reference gives. {relation.message} {hint}".strip())
        # before the fallbacks: the one edit that fits replaces them (after the hint, which
        # may read what a check's hooks recorded: the edits run the reference)
        deviation = self.deviation()
        if deviation:
            self.fail(f"{what} is not what the reference gives. {deviation}")
        if not np.isfinite(got_np).all() and np.isfinite(exp_np).all():
            bad = np.argwhere(~np.isfinite(got_np))[0]
            self.fail(
                f"{what} contains NaN or inf (first at index {tuple(int(i) for i in bad)}) "
                f"where the expected values are all finite. NaN comes from the square root or "
                f"log of a negative number, 0 / 0 or inf - inf; inf from a division by zero "
                f"or the exp of a large number. {hint}".strip()
            )
        diff = np.abs(np.nan_to_num(got_np - exp_np, nan=np.inf))
        worst = np.unravel_index(int(np.argmax(diff)), diff.shape) if diff.ndim else ()
        where = f" at index {tuple(int(i) for i in worst)}" if diff.ndim else ""
        hint = hint or self.deviation(candidates=True)
        advice = " ".join(
            part for part in (first_wrong(got_np, exp_np, rtol=rtol, atol=atol), hint) if part
        )
        self.fail(
            f"{what} differs from the reference: largest difference {float(diff.max()):.3g}{where} "
            f"(yours {float(got_np[worst]):.6g}, expected {float(exp_np[worst]):.6g}). {advice}".strip()
        )

    def expect_true(self, condition: bool, message: str) -> None:
        if not condition:
            self.fail(message)
        self.ok()


def _rounded_up_axis(got: tuple, shape: tuple) -> str:
    """The one axis whose size is the asked one rounded up (to a multiple of a round
    number, or the next power of two), the others right, named; "" otherwise."""
    if len(got) != len(shape):
        return ""
    differ = [axis for axis in range(len(shape)) if got[axis] != shape[axis]]
    if len(differ) != 1:
        return ""
    axis = differ[0]
    rounding = rounded_up(int(got[axis]), int(shape[axis]))
    if not rounding:
        return ""
    return (
        f"Axis {axis} has {got[axis]} entries where {shape[axis]} belong: {shape[axis]} "
        f"rounded up to {rounding}, a size padded (for speed, as nanoGPT pads its vocabulary "
        f"to 50304). The contract asks for exactly {shape[axis]}: build that axis with the "
        "size given, unpadded."
    )


def _plain(value: Any) -> Any:
    """``value`` as a float64 array, or None when it is None or cannot be one."""
    if value is None:
        return None
    try:
        return as_numpy(value).astype(np.float64)
    except Exception:  # anything the caller passed: the diagnosis is then skipped
        return None


def _reshaped_in_place(value: Any, recorded: Any, name: str) -> str:
    """Where a tensor argument's shape changed during the call (b12b: cos.unsqueeze_(0) on
    the caller's table), what changed and the in-place shape methods that do it; ""
    otherwise (its values changed, or it is not a tensor)."""
    before, after = getattr(recorded, "shape", None), getattr(value, "shape", None)
    if before is None or after is None or tuple(before) == tuple(after):
        return ""
    return (
        f": its shape went from {tuple(before)} to {tuple(after)}. A method ending in an "
        "underscore changes the tensor it is called on (unsqueeze_, squeeze_, t_, "
        f"transpose_, resize_); the plain form returns a new one ({name}.unsqueeze(0), or "
        f"{name}[None])"
    )


def _is_empty(value: Any) -> bool:
    """An argument with no items: an empty list, tuple, str or dict, or an array or a
    tensor of size 0."""
    if isinstance(value, list | tuple | str | dict):
        return len(value) == 0
    size = getattr(value, "size", None)
    size = size() if callable(size) and not isinstance(value, np.ndarray) else size
    return isinstance(size, int | np.integer) and not isinstance(size, bool) and size == 0


def _whole_numbers_of(value: Any, expected: Any) -> str:
    """How an integer result holds the expected values cut to whole numbers (truncated
    toward zero, rounded, rounded down), when one way gives every entry; "" otherwise (or
    for values that do not convert, such as the grader's stand-ins)."""
    try:
        got = np.asarray(value.detach().cpu() if hasattr(value, "detach") else value, dtype=float)
        right = np.asarray(
            expected.detach().cpu() if hasattr(expected, "detach") else expected, dtype=float
        )
    except (TypeError, ValueError, RuntimeError):
        return ""
    if got.shape != right.shape:
        return ""
    if np.array_equal(right, np.round(right)):  # no fraction to lose on this input
        if not np.array_equal(got, right):
            return ""
        return (
            "Your values are right here only because every one of them is a whole number: "
            "the result itself is an integer array, cast to an integer dtype "
            "(.astype(int), int(...)) or written into an array created with one, and any "
            "fraction would be cut off. Keep the result floating-point: no cast, and create "
            "any output array with a float dtype."
        )
    cuts = {
        "truncated toward zero, every fraction cut off (-0.7 became 0, 1.9 became 1)": np.trunc,
        "rounded to the nearest whole number": np.round,
        "rounded down to whole numbers (floor)": np.floor,
    }
    found = [how for how, cut in cuts.items() if np.array_equal(got, cut(right))]
    if len(found) != 1:
        return ""
    return (
        f"Your values are the right ones {found[0]}: the result was cast to an integer dtype "
        "(.astype(int), int(...), np.int64(...)), or written into an array created with an "
        "integer dtype (np.zeros(..., dtype=int), or with the dtype of integer inputs such "
        "as ids.dtype), which cuts each value it receives. Keep the result floating-point: "
        "no cast, and create any output array with a float dtype."
    )
