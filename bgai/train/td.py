"""TD(lambda) targets: lambda-returns over finished self-play games (the forward view).

Why the forward view: self-play runs hundreds of games at once with one batched network
update per turn. Online eligibility traces would need a trace per game for every weight
(per-sample gradients); lambda-returns need only each game's afterstate values, which move
selection computes anyway. With values from the network that chose the moves this is the
offline lambda-return algorithm, equal to offline TD(lambda) (Sutton & Barto, ch. 12).

Conventions: ``values[t]`` is the value of the afterstate chosen at turn ``t`` from the view
of the player who moved at ``t`` (five probabilities, see :mod:`bgai.model.probs`); the last
one is the exact game result. The return for the position before turn ``t`` is

    G[t] = (1 - lam) * values[t] + lam * invert(G[t + 1]),   G[last] = values[last]

where ``invert`` switches to the other player's view (players alternate turns).
"""

from __future__ import annotations

import torch

from bgai.model.probs import invert


def lambda_returns(values: torch.Tensor, lengths: torch.Tensor, lam: float) -> torch.Tensor:
    """Returns ``(G, T, 5)`` for ``G`` games whose ``values`` are ``(G, T, 5)``, padded after ``lengths``.

    Computed without a loop over time: in the first mover's fixed view the recursion is linear,
    ``G[t] = sum_k lam**(k - t) * c[k] * v[k]`` over ``k >= t`` with ``c = 1 - lam`` except
    ``c[last] = 1``, i.e. one (T, T) matrix product; ``invert`` is affine and the weights sum to
    one, so switching views commutes with the blend.
    """
    g, t_max, _ = values.shape
    device, dtype = values.device, values.dtype
    steps = torch.arange(t_max, device=device)
    odd = (steps % 2 == 1)[None, :, None]
    fixed = torch.where(odd, invert(values), values)  # the first mover's view
    weight = torch.full((g, t_max), 1 - lam, dtype=dtype, device=device)
    weight[steps[None, :] == (lengths - 1)[:, None]] = 1.0
    weight[steps[None, :] >= lengths[:, None]] = 0.0
    decay = _decay(t_max, lam, device).to(dtype)
    mixed = (fixed * weight[..., None]).transpose(0, 1).reshape(t_max, g * 5)
    blended = (decay @ mixed).reshape(t_max, g, 5).transpose(0, 1)
    returns = torch.where(odd, invert(blended), blended)
    return returns * (steps[None, :] < lengths[:, None])[..., None]


_decay_cache: dict[tuple[float, str], torch.Tensor] = {}


def _decay(t_max: int, lam: float, device: torch.device) -> torch.Tensor:
    """``D[t, k] = lam ** (k - t)`` for ``k >= t``, else 0 (cached, grown as needed)."""
    key = (lam, str(device))
    cached = _decay_cache.get(key)
    if cached is None or cached.shape[0] < t_max:
        size = max(t_max, 256 if cached is None else 2 * cached.shape[0])
        powers = torch.tensor(lam, dtype=torch.float64) ** torch.arange(size, dtype=torch.float64)
        gap = torch.arange(size)[None, :] - torch.arange(size)[:, None]
        cached = torch.where(gap >= 0, powers[gap.clamp(min=0)], 0.0).float().to(device)
        _decay_cache[key] = cached
    return cached[:t_max, :t_max]
