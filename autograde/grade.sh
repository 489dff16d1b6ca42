#!/usr/bin/env bash
# Grade one lesson for a whole class: autograde, feedback, export.
#   autograde/grade.sh 01_tokenization
# Submissions go in autograde/submitted/<student_id>/<lesson>/<lesson>.ipynb first
# (nbgrader collect / zip_collect, or copy them). Run from anywhere; uses .venv if present.
set -euo pipefail
lesson=${1:?usage: autograde/grade.sh <lesson, e.g. 01_tokenization>}
cd "$(dirname "$0")/.."
[[ -x .venv/bin/nbgrader ]] && export PATH="$PWD/.venv/bin:$PATH"
nbgrader generate_assignment "$lesson" --force   # records test cells (and hidden tests) in the gradebook
nbgrader autograde "$lesson"
nbgrader generate_feedback "$lesson"
nbgrader export --to autograde/grades.csv
echo "grades: autograde/grades.csv   feedback: autograde/feedback/<student>/$lesson/"
