"""The diagnosis benchmark: realistic wrong answers, written apart from the tests' mistake
tables, put through every exercise's visible and hidden check; see README.md."""
