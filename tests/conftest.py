"""Shared test setup: one torch thread per test process (pytest -n 2 runs two processes; more
threads than cores makes small batched ops several times slower)."""

import torch

torch.set_num_threads(1)
