# SPDX-License-Identifier: MIT
"""JAX: computes every case of a bitcts export with jax.lax's bitwise operators (and_, or_,
xor, not_, population_count, shift_left, shift_right_logical) on the default device, and writes
results for `bitcts check` (docs/check.md), 64-bit types enabled (jax_enable_x64). JAX arrays
have no strides and XLA compiles one program per shape, so each input goes in as its logical
elements (broadcasts expanded on the host), flattened and padded with zeros to a power of four:
six lengths compile for the whole default tier instead of one shape per case. The output comes back
as logical elements (layout "elements"). Floats are bit-cast on the host to the unsigned
integer of the same width."""

import numpy as np

import bitcts_export as bx

LAX = {"bit_and": "bitwise_and", "bit_or": "bitwise_or", "bit_xor": "bitwise_xor",
       "bit_not": "bitwise_not", "bit_count": "population_count",
       "bit_shift_left": "shift_left", "bit_shift_right": "shift_right_logical"}


class Runner:
    """JAX runner for bitcts vector exports."""

    name = "jax"

    def __init__(self, device):
        import jax  # a missing JAX makes every case not_supported with this error
        jax.config.update("jax_enable_x64", True)
        import jax.numpy as jnp
        self.jax, self.jnp = jax, jnp
        self.device = jax.devices(device)[0] if device else jax.devices()[0]
        self.fns = {}

    def version(self):
        return self.jax.__version__

    def info(self):
        import jaxlib
        return {"device": str(self.device.platform), "gpu": str(self.device.device_kind),
                "jaxlib": jaxlib.__version__,
                "layout": "logical elements (JAX has no strided views)",
                "floats": "bit-cast to the unsigned integer of the same width"}

    def fn(self, op):
        if op not in self.fns:
            jnp, lax = self.jnp, self.jax.lax
            table = {"bitwise_and": jnp.bitwise_and, "bitwise_or": jnp.bitwise_or,
                     "bitwise_xor": jnp.bitwise_xor, "bitwise_not": jnp.invert,
                     "population_count": lax.population_count, "shift_left": lax.shift_left,
                     "shift_right_logical": lax.shift_right_logical}
            self.fns[op] = self.jax.jit(table[LAX[op]])
        return self.fns[op]

    def compute(self, case, io):
        n = int(np.prod(case.output.sizes))
        padded = 1 << max(8, ((n - 1).bit_length() + 1) // 2 * 2)  # a power of 4
        args = []
        for t in case.inputs:
            flat = np.zeros(padded, dtype=bx.framework_type(case, t))
            flat[:n] = np.ascontiguousarray(io.view(t.role, flat.dtype)).reshape(-1)
            args.append(self.jax.device_put(flat, self.device))
        try:
            result = self.fn(case.operator)(*args)
        except TypeError as e:
            raise bx.NotSupported("jax: %s" % str(e).splitlines()[0])
        want = np.dtype(bx.framework_type(case, case.output))
        return np.asarray(result)[:n].astype(want, copy=False), "elements"


if __name__ == "__main__":
    bx.main(Runner)
