"""ragreport: retrieval-evaluation reports with every convention stated and every mean banded."""

__version__ = "0.1.0"

from .api import analyse, build, document, evaluate  # noqa: E402
from .loaders import load_runs  # noqa: E402
from .model import Conventions, Denominator, Gain, Missing, Order  # noqa: E402

__all__ = ["evaluate", "analyse", "document", "build", "load_runs", "Conventions", "Denominator", "Gain", "Missing", "Order", "__version__"]
