"""checking.split_words: words cut into pieces, the rule named only when every cut fits it."""

import re

from transformer_course.checking.split_words import script_of, split_words, word_pieces


def _words(text):
    return re.findall(r"\w+|[^\w\s]", text.lower())


def _ideographs_alone(text):
    return re.findall(r"[\u4e00-\u9fff]|\w+|[^\w\s]", text.lower())


def test_script_of_names_ideographs_letters_and_digits():
    assert [script_of(ch) for ch in "任a2λ_ж"] == [
        "CJK",
        "LATIN",
        "DIGIT",
        "GREEK",
        "UNDERSCORE",
        "CYRILLIC",
    ]


def test_word_pieces_only_when_nothing_else_differs():
    assert word_pieces(["a", "b", "!"], ["ab", "!"]) == [("ab", ["a", "b"])]
    assert word_pieces(["ab"], ["ab"]) == []
    assert word_pieces(["a", "c", "!"], ["ab", "!"]) is None  # a wrong piece
    assert word_pieces(["ab"], ["ab", "!"]) is None  # a token lost
    assert word_pieces([".", "."], [".."]) is None  # not a word


def test_each_ideograph_alone_is_named_with_the_word_and_a_word_kept_whole():
    texts = ["任务：Tokenize 文本。", "Déjà vu"]
    message = split_words([(_ideographs_alone(t), _words(t)) for t in texts])
    assert message.startswith("'任务' came back as '任', '务': every CJK ideograph")
    assert "tokenize_chinese_chars" in message and "('déjà')" in message


def test_a_cut_at_the_script_change_is_not_called_one_character_per_token():
    pairs = [(["2024", "年", "东京"], ["2024年", "东京"])]  # '东京' kept whole
    message = split_words(pairs)
    assert "cut wherever the script changes" in message
    assert "token of its own" not in message


def test_a_single_digit_cut_off_is_not_called_each_digit_alone():
    # one digit cannot tell 'each digit alone' from 'a run of digits cut off'
    message = split_words([(["v", "2"], ["v2"]), (["tokyo東京"], ["tokyo東京"])])
    assert "each run of digits was cut off" in message
    assert "every digit" not in message


def test_no_rule_fits_says_where_without_a_cause():
    message = split_words([(["ab", "c", "abc"], ["abc", "abc"])])  # cut once, kept once
    assert message.startswith("'abc' came back as 'ab', 'c': your tokens cut this word")
    assert "script changes" not in message and "of its own" not in message


def test_silent_when_the_tokens_differ_otherwise():
    assert split_words([(["a", "b"], ["ab"]), (["x"], ["y"])]) == ""
    assert split_words([(["ab"], ["ab"])]) == ""
