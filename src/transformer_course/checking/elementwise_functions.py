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

__all__ = ["described_function", "factor_in_place", "row_scaled_function"]

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


#: the right functions that are z times a factor of z: {the right one: (the factor as
#: written, the factor, the in-place calls that overwrite z with it, the product so written)}
PRODUCT_FACTORS = {
    "F.silu(z) = z * sigmoid(z)": (
        "sigmoid(z)",
        torch.sigmoid,
        "z.sigmoid_(), torch.sigmoid_(z) or torch.sigmoid(z, out=z)",
        "z * z.sigmoid_()",
    ),
}


def factor_in_place(z: torch.Tensor, g: torch.Tensor, right: str) -> str:
    """When the right function is z * h(z) (:data:`PRODUCT_FACTORS`) and g is h(z) * h(z):
    the factor took z's place in the product, which an in-place h (``z * z.sigmoid_()``:
    the sigmoid overwrites z before the product reads it) or h written on both sides gives
    (blind30c-swiglu-sigmoid-in-place-on-gate was told "largest difference"); the phrase
    "f(z) = h(z) * h(z) ..." with both causes, or "" otherwise."""
    if right not in PRODUCT_FACTORS:
        return ""
    written, factor, in_place, example = PRODUCT_FACTORS[right]
    z, g = z.detach().double().flatten(), g.detach().double().flatten()  # (n,) each
    if z.shape != g.shape or z.numel() < 8 or not _fits(g, factor(z) * factor(z)):
        return ""
    if _fits(g, factor(z) * z):
        return ""  # the samples do not tell the two apart
    return (
        f"f(z) = {written} * {written} = {written} ** 2: the factor {written} took z's place "
        f"in the product z * {written}. An in-place call on z ({in_place}) overwrites z "
        f"before the product reads it, so both operands hold the factor (in {example}, the "
        f"left z is the same tensor, already overwritten); or {written} is written on both "
        "sides of the product"
    )


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


def _scaled_fit(z: torch.Tensor, g: torch.Tensor) -> str:
    """ "a * name" when g is one function of :data:`CATALOGUE` times one constant a other
    than 1 (and 0) on every sample, and exactly one function fits so; "" otherwise (a ReLU
    divided by sqrt(d_ff) was told only that its values differ)."""
    found = []
    for name, fn in CATALOGUE.items():
        values = fn(z)  # (n,)
        size = float((values * values).sum())
        if not size > 1e-12:
            continue
        factor = float((values * g).sum()) / size  # least squares
        if abs(factor) > 1e-6 and abs(factor - 1) > 1e-3 and _fits(g, factor * values):
            found.append(f"{factor:.4g} * {name}")
    return found[0] if len(found) == 1 else ""


def _leaky_fit(z: torch.Tensor, g: torch.Tensor) -> str:
    """ "F.leaky_relu(z, negative_slope=a)" when g is z on the positive side and a * z on the
    negative one, for one slope a other than 0 and 1 (the catalogue holds only PyTorch's
    default 0.01; a slope of 0.1 or 0.2, as in GAN code, was told "largest difference");
    "" otherwise."""
    negative, positive = z < -0.05, z > 0.05
    if int(negative.sum()) < 3 or int(positive.sum()) < 3:
        return ""
    if not _fits(g[positive], z[positive]):
        return ""
    zn, gn = z[negative], g[negative]
    slope = float((zn * gn).sum() / (zn * zn).sum())  # least squares
    if abs(slope) < 1e-3 or abs(slope - 1) < 1e-3 or abs(slope - 0.01) < 1e-6:
        return ""
    if not _fits(g, torch.where(z > 0, z, slope * z)):
        return ""
    return (
        f"F.leaky_relu(z, negative_slope={slope:.3g}): z where z > 0 and {slope:.3g} * z where "
        "z < 0, a leak where the ReLU gives 0"
    )


def described_function(z: torch.Tensor, g: torch.Tensor, right: str) -> str:
    """What g = f(z) is, as a phrase that starts with "f(z) = ...": the one function of
    :data:`CATALOGUE` that fits every sample (not ``right``, the one that belongs), else
    what the values show (one of them times a constant, or a power law); the right
    function with one operation added (:data:`ONE_OPERATION`) when exactly one such fits;
    "" when the samples are too few, not finite, or show nothing that tells them from
    ``right``. z and g are 1-D float tensors of equal length."""
    z, g = z.detach().double().flatten(), g.detach().double().flatten()  # (n,) each
    if z.shape != g.shape or z.numel() < 8 or not bool(torch.isfinite(g).all()):
        return ""
    fits = [name for name, fn in CATALOGUE.items() if _fits(g, fn(z))]
    if len(fits) == 1 and fits[0] != right:
        return f"f(z) = {fits[0]}"
    if fits:
        return ""  # the right one, or several that the samples do not tell apart
    if scaled := _scaled_fit(z, g):
        return f"f(z) = {scaled}"
    if leaky := _leaky_fit(z, g):
        return f"f(z) = {leaky}"
    if in_place := factor_in_place(z, g, right):
        return in_place
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
    if (
        bool((g == g.round()).all())
        and int((g != 0).sum()) >= 3
        and not bool((z == z.round()).all())
    ):
        said.append("a whole number for every z (rounded: .round(), .floor(), .long() or int())")
    right_fn = CATALOGUE.get(right)
    if said == ["exactly 0 for every negative z"] and right_fn is not None:
        right_values = right_fn(z[negative]) if int(negative.sum()) else z[:0]
        if bool((right_values.abs() < 1e-6).all()):
            return ""  # true of the right function too: it tells nothing apart
    if not said:
        return ""
    return "f(z) is " + " and ".join(said)


def row_scaled_function(z: torch.Tensor, g: torch.Tensor) -> tuple[str, str] | None:
    """(the function's formula, how each row is scaled) when every row of g (rows,
    features) is one function of :data:`CATALOGUE` of the same row of z times one number
    per row, those numbers not all equal, and exactly one function fits: an activation
    followed by a normalisation across the features (a softmax, a division by the sum or
    by the L2 norm). The scaling is said as "divided by its sum over the features", "divided
    by its L2 norm over the features" or "times one number per row"; None otherwise."""
    try:
        z, g = z.detach().double(), g.detach().double()  # (rows, features) each
        if z.shape != g.shape or z.dim() != 2 or z.shape[0] < 2 or z.shape[1] < 4:
            return None
        if not bool(torch.isfinite(g).all()):
            return None
        found = []
        for name, fn in CATALOGUE.items():
            values = fn(z)  # (rows, features)
            size = (values * values).sum(-1)  # (rows,)
            if not bool((size > 1e-12).all()):
                continue
            factors = (values * g).sum(-1) / size  # (rows,) least squares per row
            if float(factors.std()) < 1e-4 * float(factors.abs().mean()):
                continue  # one number for all rows: not this family
            if _fits(g, factors[:, None] * values):
                found.append((name, values, factors))
    except Exception:  # values of no usable kind: no answer
        return None
    if len(found) != 1:
        return None
    name, values, factors = found[0]
    if torch.allclose(factors, 1 / values.sum(-1), rtol=1e-4):
        return name, "divided by its sum over the features"
    if torch.allclose(factors, 1 / values.norm(dim=-1), rtol=1e-3):
        return name, "divided by its L2 norm over the features"
    return name, "times one number per row"
