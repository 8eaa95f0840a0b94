"""One line with the versions of Python, torch and the GPU peers, for the env.txt of a benchmark run."""
import sys
from importlib.metadata import version

import torch


def installed(name):
    try:
        return version(name)
    except Exception:
        return "not installed"


print(f"python {sys.version.split()[0]}, torch {torch.__version__} (CUDA {torch.version.cuda}), "
      f"torchsort {installed('torchsort')}, torchisotonic {installed('torchisotonic')}")
