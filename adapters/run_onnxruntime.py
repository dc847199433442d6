# SPDX-License-Identifier: MIT
"""ONNX Runtime: computes every case of a bitcts export with a one-node ONNX model per operator
and type (BitwiseAnd, BitwiseOr, BitwiseXor, BitwiseNot at opset 18; BitShift at opset 11 with
direction LEFT or RIGHT), and writes results for `bitcts check` (docs/check.md). The models are
encoded here (protobuf by hand: the onnx package is not needed). ONNX takes contiguous tensors:
each input goes in as its logical elements with the dimensions it broadcasts along kept at size
1, so ONNX's multidirectional broadcasting expands them; the output comes back as logical
elements. Floats are bit-cast to the unsigned integer of the same width. ONNX has no popcount
operator: BIT_COUNT is not_supported. A type the execution provider has no kernel for is
not_supported with ONNX Runtime's own error. --device cuda runs on the CUDA execution provider
with the CPU fallback disabled, so a node is never moved to the CPU silently."""

import numpy as np

import bitcts_export as bx

ONNX_TYPES = {"uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6, "int64": 7,
              "uint32": 12, "uint64": 13}
NODES = {"bit_and": ("BitwiseAnd", 18, None), "bit_or": ("BitwiseOr", 18, None),
         "bit_xor": ("BitwiseXor", 18, None), "bit_not": ("BitwiseNot", 18, None),
         "bit_shift_left": ("BitShift", 11, "LEFT"), "bit_shift_right": ("BitShift", 11, "RIGHT")}


def _varint(n):
    out = bytearray()
    while True:
        byte = n & 0x7F
        n >>= 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _field(number, payload):
    """A length-delimited field (strings, bytes, messages)."""
    if isinstance(payload, str):
        payload = payload.encode()
    return _varint(number << 3 | 2) + _varint(len(payload)) + payload


def _int(number, value):
    return _varint(number << 3) + _varint(value)


def model_bytes(op_type, opset, direction, elem_type, inputs):
    """ModelProto of one node: inputs named A (and B), output C, tensors of elem_type, any
    shape (no shape given)."""
    def value_info(name):
        tensor = _int(1, elem_type)                        # TypeProto.Tensor.elem_type
        return _field(1, name) + _field(2, _field(1, tensor))  # name, type.tensor_type
    node = b"".join(_field(1, n) for n in inputs) + _field(2, "C") + _field(4, op_type)
    if direction is not None:  # AttributeProto: name, s, type STRING (3)
        node += _field(5, _field(1, "direction") + _field(4, direction) + _int(20, 3))
    graph = _field(1, node) + _field(2, "bitcts") + b"".join(
        _field(11, value_info(n)) for n in inputs) + _field(12, value_info("C"))
    opset_import = _field(1, "") + _int(2, opset)
    return _int(1, 8) + _field(2, "bitcts") + _field(7, graph) + _field(8, opset_import)


class Runner:
    """ONNX Runtime runner for bitcts vector exports."""

    name = "onnxruntime"

    def __init__(self, device):
        import onnxruntime  # a missing ONNX Runtime makes every case not_supported
        self.ort = onnxruntime
        self.device = device or "cpu"
        if self.device == "cpu":
            self.providers = ["CPUExecutionProvider"]
        elif self.device == "cuda":
            if "CUDAExecutionProvider" not in onnxruntime.get_available_providers():
                raise RuntimeError("onnxruntime has no CUDAExecutionProvider (providers: %s)" %
                                   ", ".join(onnxruntime.get_available_providers()))
            self.providers = ["CUDAExecutionProvider"]
        else:
            raise ValueError("--device must be cpu or cuda, not %r" % device)
        self.sessions = {}

    def version(self):
        return self.ort.__version__

    def info(self):
        return {"device": self.device, "providers": ",".join(self.providers),
                "layout": "logical elements (ONNX tensors are contiguous)",
                "floats": "bit-cast to the unsigned integer of the same width"}

    def session(self, case, dtype):
        key = (case.operator, dtype)
        if key not in self.sessions:
            op_type, opset, direction = NODES[case.operator]
            names = ["A", "B"] if case.binary else ["A"]
            opts = self.ort.SessionOptions()
            opts.log_severity_level = 3
            if self.device != "cpu":
                opts.add_session_config_entry("session.disable_cpu_ep_fallback", "1")
            try:
                self.sessions[key] = self.ort.InferenceSession(
                    model_bytes(op_type, opset, direction, ONNX_TYPES[dtype], names), opts,
                    providers=self.providers)
            except Exception as e:  # no kernel for this type: ORT's own words
                self.sessions[key] = bx.NotSupported("onnxruntime: %s" % bx.clean(e, 600))
        s = self.sessions[key]
        if isinstance(s, Exception):
            raise s
        return s

    def compute(self, case, io):
        if case.operator not in NODES:
            raise bx.NotSupported("ONNX has no popcount operator (BIT_COUNT)")
        dtype = bx.framework_type(case, case.inputs[0])
        sess = self.session(case, dtype)
        if case.binary:
            a, b = (io.compact(t.role, dtype) for t in case.inputs)
            if np.broadcast_shapes(a.shape, b.shape) != tuple(case.output.sizes):
                a = np.ascontiguousarray(io.view("A", dtype))
            feeds = {"A": a, "B": b}
        else:
            feeds = {"A": np.ascontiguousarray(io.view(case.inputs[0].role, dtype))}
        out = sess.run(["C"], feeds)[0]
        if out.shape != tuple(case.output.sizes):
            raise RuntimeError("output shape %s, want %s" % (out.shape, case.output.sizes))
        return np.ascontiguousarray(out), "elements"


if __name__ == "__main__":
    bx.main(Runner)
