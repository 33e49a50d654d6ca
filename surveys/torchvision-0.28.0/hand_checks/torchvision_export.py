"""Plain torch.export of torchvision 0.28.0 transforms, without opsweep: the hand check of the comparison
page's "deploys in kornia, not in torchvision" rows. Run in the torchvision environment:
`$(bash scripts/torch-env.sh torchvision-0.28.0) surveys/torchvision-0.28.0/hand_checks/torchvision_export.py`."""
import torch, warnings, logging
warnings.filterwarnings("ignore"); logging.disable(logging.WARNING)
torch.set_num_threads(1)
from torchvision.transforms import v2
from torchvision.transforms.v2 import functional as F
img = torch.rand(1, 3, 32, 32)
class T(torch.nn.Module):
    def __init__(self, fn): super().__init__(); self.fn = fn
    def forward(self, x): return self.fn(x)
cases = {
  "v2.RandomAffine(degrees=30)": v2.RandomAffine(degrees=30),
  "v2.RandomResizedCrop(24)": v2.RandomResizedCrop(24),
  "F.perspective(img, start, end)": T(lambda x: F.perspective(x, [[0,0],[31,0],[31,31],[0,31]], [[2,1],[30,3],[29,30],[1,28]])),
  "F.rotate(img, 30)": T(lambda x: F.rotate(x, 30.0)),
}
for name, m in cases.items():
    try:
        ep = torch.export.export(m, (img,))
        print(f"{name}: torch.export ok")
    except Exception as e:
        print(f"{name}: torch.export fails: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
