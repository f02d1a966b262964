import numpy as np


def standardise(block):
    n = block.shape[0]
    mean = block.sum(axis=0) / n
    spread = np.sqrt((block * block).sum(axis=0) / n - mean * mean + 1e-8)
    return (block - mean) / spread


x = standardise(np.random.randn(30, 8))

# expect-not: std_division_unguarded
