# SPDX-License-Identifier: MIT
# A NumPy stand-in for the names adapters/ uses, so that CTest runs the adapters without the
# framework (tests/check/adapters_smoke.sh); it proves the adapters' logic, not the framework.
# This one decodes the ONNX model the adapter encodes by hand (the fields of onnx.proto it
# uses), so a model with a wrong field number or type fails here; like ONNX Runtime's CPU
# execution provider, it has no BitShift kernel for uint16.
import numpy as _np

__version__ = "0.0-fake"
_TYPES = {2: "uint8", 3: "int8", 4: "uint16", 5: "int16", 6: "int32", 7: "int64", 12: "uint32",
          13: "uint64"}
_OPS = {"BitwiseAnd": _np.bitwise_and, "BitwiseOr": _np.bitwise_or,
        "BitwiseXor": _np.bitwise_xor, "BitwiseNot": _np.invert}


def get_available_providers():
    return ["CPUExecutionProvider"]


class SessionOptions:
    log_severity_level = 0

    def add_session_config_entry(self, key, value):
        pass


def _varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return v, i


def _fields(b):
    """{field number: [values]} of a protobuf message (varints and length-delimited only)."""
    out, i = {}, 0
    while i < len(b):
        key, i = _varint(b, i)
        if key & 7 == 0:
            v, i = _varint(b, i)
        elif key & 7 == 2:
            n, i = _varint(b, i)
            v, i = bytes(b[i:i + n]), i + n
        else:
            raise ValueError("unexpected wire type %d" % (key & 7))
        out.setdefault(key >> 3, []).append(v)
    return out


def _elem_type(value_info):
    return _fields(_fields(_fields(value_info)[2][0])[1][0])[1][0]


class InferenceSession:
    def __init__(self, model, opts=None, providers=None):
        m = _fields(model)
        assert m[1] == [8], "ir_version"
        opset = _fields(m[8][0])
        graph = _fields(m[7][0])
        node = _fields(graph[1][0])
        self.op = node[4][0].decode()
        self.inputs = [n.decode() for n in node[1]]
        assert [n.decode() for n in node[2]] == ["C"]
        assert [_fields(v)[1][0].decode() for v in graph[11]] == self.inputs
        types = {_elem_type(v) for v in graph[11] + graph[12]}
        assert len(types) == 1, "one element type"
        self.dtype = _TYPES[types.pop()]
        self.direction = None
        if self.op == "BitShift":
            assert opset[2] == [11]
            attr = _fields(node[5][0])
            assert attr[1] == [b"direction"] and attr[20] == [3]
            self.direction = attr[4][0].decode()
            if self.dtype == "uint16":
                raise RuntimeError("[ONNXRuntimeError] : 9 : NOT_IMPLEMENTED : Could not find an "
                                   "implementation for BitShift(11) node with name ''")
        else:
            assert opset[2] == [18] and self.op in _OPS

    def run(self, names, feeds):
        args = [feeds[n] for n in self.inputs]
        assert all(a.dtype == _np.dtype(self.dtype) and a.flags.c_contiguous for a in args)
        if self.op == "BitShift":
            f = _np.left_shift if self.direction == "LEFT" else _np.right_shift
            return [f(*args)]
        return [_OPS[self.op](*args)]
