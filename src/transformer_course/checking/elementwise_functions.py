"""Which elementwise function a learner applied, read off its values: given the inputs z
and the outputs g(z) measured inside a learner's module (a gate's activation recovered as
what a layer receives divided by the factor it multiplies), name g when exactly one
function of a catalogue fits, and otherwise say what its values show (zero for every
negative input, a power law on the positive side) next to the function that belongs.

The checks' way to name a wrong activation that no table of single edits lists (a squared
ReLU for SwiGLU's SiLU: blind27c-swiglu-relu-squared-gate was told "largest difference").
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

__all__ = ["described_function"]

#: {how it is written: the function}, for float64 tensors
CATALOGUE = {
    "F.silu(z) = z * sigmoid(z)": F.silu,
    "F.relu(z)": torch.relu,
    "F.relu(z) ** 2 (a squared ReLU, Primer's activation)": lambda z: torch.relu(z) ** 2,
    "z ** 2": lambda z: z**2,
    "F.silu(z) ** 2": lambda z: F.silu(z) ** 2,
    "F.gelu(z)": F.gelu,
    "F.gelu(z, approximate='tanh')": lambda z: F.gelu(z, approximate="tanh"),
    "torch.sigmoid(z)": torch.sigmoid,
    "torch.tanh(z)": torch.tanh,
    "F.softplus(z)": F.softplus,
    "F.elu(z)": F.elu,
    "F.selu(z)": F.selu,
    "F.mish(z)": F.mish,
    "F.hardswish(z)": F.hardswish,
    "F.leaky_relu(z)": F.leaky_relu,
    "z.abs()": torch.abs,
    "torch.exp(z)": torch.exp,
    "z (no activation)": lambda z: z,
}


#: one operation added to the function that belongs, f: {how it is written (with "f(z)" for
#: the right function's call): the composed function}; the family of "a formula with one
#: operation changed" (an absolute value, a square, a root, a sign, a factor)
ONE_OPERATION = {
    "{f}.abs() (an absolute value on it)": lambda f, z: f(z).abs(),
    "{f} ** 2 (squared)": lambda f, z: f(z) ** 2,
    "{f}.abs().sqrt() (a square root on it)": lambda f, z: f(z).abs().sqrt(),
    "-{f} (its sign flipped)": lambda f, z: -f(z),
    "2 * {f} (doubled)": lambda f, z: 2 * f(z),
    "{f} / 2 (halved)": lambda f, z: f(z) / 2,
    "{f} of z.abs() (an absolute value on its input)": lambda f, z: f(z.abs()),
    "{f} of -z (its input's sign flipped)": lambda f, z: f(-z),
    "{f} of 2 * z (its input doubled)": lambda f, z: f(2 * z),
    "{f} of z / 2 (its input halved)": lambda f, z: f(z / 2),
    "{f} * z (multiplied by its input once more)": lambda f, z: f(z) * z,
    "{f} / z (divided by its input)": lambda f, z: f(z) / z,
}


def _one_operation(z: torch.Tensor, g: torch.Tensor, right: str) -> str:
    """The one composition of :data:`ONE_OPERATION` with the right function that fits g,
    written out; "" when none or several fit, or ``right`` is not in the catalogue."""
    function = CATALOGUE.get(right)
    if function is None:
        return ""
    call = right.split(" = ")[0]
    fits = []
    for form, compose in ONE_OPERATION.items():
        with torch.no_grad():
            composed = compose(function, z)
        if bool(torch.isfinite(composed).all()) and _fits(g, composed):
            fits.append(form.format(f=call))
    return fits[0] if len(fits) == 1 else ""


def _fits(values: torch.Tensor, expected: torch.Tensor) -> bool:
    return bool(torch.allclose(values, expected, rtol=1e-4, atol=1e-5))


def described_function(z: torch.Tensor, g: torch.Tensor, right: str) -> str:
    """What g = f(z) is, as a phrase that starts with "f(z) = ...": the one function of
    :data:`CATALOGUE` that fits every sample (not ``right``, the one that belongs), else
    what the values show; "" when the samples are too few, not finite, or show nothing
    that tells them from ``right``; else the right function with one operation added
    (:data:`ONE_OPERATION`) when exactly one such fits. z and g are 1-D float tensors of
    equal length."""
    z, g = z.detach().double().flatten(), g.detach().double().flatten()  # (n,) each
    if z.shape != g.shape or z.numel() < 8 or not bool(torch.isfinite(g).all()):
        return ""
    fits = [name for name, fn in CATALOGUE.items() if _fits(g, fn(z))]
    if len(fits) == 1 and fits[0] != right:
        return f"f(z) = {fits[0]}"
    if fits:
        return ""  # the right one, or several that the samples do not tell apart
    composed = _one_operation(z, g, right)
    if composed:
        return f"f(z) = {composed}"
    negative, positive = z < -0.05, z > 0.05
    said = []
    if int(negative.sum()) >= 3 and bool((g[negative].abs() < 1e-6).all()):
        said.append("exactly 0 for every negative z")
    if int(positive.sum()) >= 4:
        zp, gp = z[positive], g[positive]
        if bool((gp > 0).all()):
            # log g = p log z + log a, by least squares
            basis = torch.stack([zp.log(), torch.ones_like(zp)], dim=1)  # (n, 2)
            power, log_scale = torch.linalg.lstsq(basis, gp.log()[:, None]).solution[:, 0]
            scale = float(log_scale.exp())
            if _fits(gp, scale * zp ** float(power)) and abs(float(power) - 1) > 0.05:
                factor = "" if abs(scale - 1) < 1e-3 else f"{scale:.3g} * "
                said.append(f"{factor}z ** {float(power):.3g} for positive z")
    if not said:
        return ""
    return "f(z) is " + " and ".join(said)
