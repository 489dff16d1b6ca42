from benchmarks.diagnosis.run import main

raise SystemExit(main())
