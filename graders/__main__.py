from graders.cli.main import main

raise SystemExit(main())
