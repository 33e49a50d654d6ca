"""Plain torch.export of kornia 0.9.0's box NMS, without opsweep: the hand check of the comparison page's\n"deploys in torchvision, not in kornia" row. Run in the main environment."""
import torch, warnings, logging
warnings.filterwarnings("ignore"); logging.disable(logging.WARNING)
torch.set_num_threads(1)
from kornia.geometry.bbox import nms
class N(torch.nn.Module):
    def forward(self, boxes, scores): return nms(boxes, scores, 0.5)
boxes = torch.tensor([[0., 0., 10., 10.], [1., 1., 11., 11.], [20., 20., 30., 30.]]); scores = torch.tensor([0.9, 0.8, 0.7])
try:
    torch.export.export(N(), (boxes, scores)); print("kornia nms: torch.export ok")
except Exception as e:
    print("kornia nms: torch.export fails:", type(e).__name__, str(e).splitlines()[0][:150])
