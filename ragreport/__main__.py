import sys

# From the commands' module, not the package: the package re-exports main one import further up,
# and the chain from here to the core stays within the layout's 8 modules.
from .cli.commands import main

sys.exit(main())
