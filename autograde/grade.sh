#!/usr/bin/env bash
# Grade one lesson (or all lessons) for a whole class with the course's sandboxed grader:
#   autograde/grade.sh 01_tokenization
#   autograde/grade.sh all
#   autograde/grade.sh 01_tokenization --zip lms-download.zip    (any course-grader option)
# Submissions go in autograde/submitted/<student_id>/<lesson>/<lesson>.ipynb first
# (nbgrader collect / zip_collect, or copy them), or come from --zip. It registers the
# lesson in the gradebook, grades every new or changed submission, writes feedback to
# autograde/feedback/<student>/<lesson>/ and the grades to autograde/grades.csv.
# Exit status: 0 graded; 3 graded, with submissions flagged for a human (listed at the
# end; everything else was graded and written); 1 the grader could not run.
# Run from anywhere; uses .venv if present.
set -uo pipefail
: "${1:?usage: autograde/grade.sh <lesson, e.g. 01_tokenization, or all> [course-grader options]}"
cd "$(dirname "$0")/.."
python=python3
[[ -x .venv/bin/python ]] && python="$PWD/.venv/bin/python" && export PATH="$PWD/.venv/bin:$PATH"
"$python" -m transformer_course.grader "$@"
status=$?
if [[ $status -eq 3 ]]; then
    echo "Some submissions are flagged for a human (see above); the rest is graded."
fi
exit $status
