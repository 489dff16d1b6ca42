import sys

from benchmarks.diagnosis.run import main, run_under_hash_seed

run_under_hash_seed(sys.argv[1:])
raise SystemExit(main())
