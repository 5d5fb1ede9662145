"""Puts the repository's root on the path, so that `import bench` finds this package."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
