import os
import sys
from pathlib import Path

# pytest-xdist runs one worker per core: one thread each is fastest, and the kernels
# and nbgrader processes the tests start inherit it. Set before torch is imported.
os.environ.setdefault("OMP_NUM_THREADS", "1")

sys.path.insert(0, str(Path(__file__).parent))
