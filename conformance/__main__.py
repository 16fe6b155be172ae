from conformance.entry import main

raise SystemExit(main())
