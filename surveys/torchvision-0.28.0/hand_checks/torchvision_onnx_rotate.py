"""Plain torch.onnx.export of torchvision 0.28.0's F.rotate on an image tensor, then onnx.checker and onnxruntime:\nthe hand check of the comparison page's torchvision ONNX "no" for rotate. Run in the torchvision environment."""
import torch, warnings, logging, onnx, onnxruntime as ort, numpy as np
warnings.filterwarnings("ignore"); logging.disable(logging.WARNING)
torch.set_num_threads(1)
from torchvision.transforms.v2 import functional as F
class Rot(torch.nn.Module):
    def forward(self, x): return F.rotate(x, 30.0)
x = torch.rand(1, 3, 32, 32)
prog = torch.onnx.export(Rot(), (x,), dynamo=True, verbose=False)
m = prog.model_proto
try:
    onnx.checker.check_model(m, full_check=True); print("checker ok")
except Exception as e:
    print("checker rejects:", str(e).splitlines()[0][:200])
try:
    s = ort.InferenceSession(m.SerializeToString(), providers=["CPUExecutionProvider"])
    out = s.run(None, {s.get_inputs()[0].name: x.numpy()})[0]
    print("onnxruntime runs it; max abs diff vs eager:", float(np.abs(out - Rot()(x).numpy()).max()))
except Exception as e:
    print("onnxruntime fails:", str(e).splitlines()[0][:200])
