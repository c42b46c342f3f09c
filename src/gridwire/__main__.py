from gridwire.cli import main

raise SystemExit(main())
