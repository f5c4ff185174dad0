import sys

from fastgo.cli import main

sys.exit(main())
