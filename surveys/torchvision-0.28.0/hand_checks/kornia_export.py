"""Plain torch.export of the kornia 0.9.0 equivalents of torchvision_export.py's transforms, without opsweep.
Run in the main environment: `python surveys/torchvision-0.28.0/hand_checks/kornia_export.py`."""
import torch, warnings, logging
warnings.filterwarnings("ignore"); logging.disable(logging.WARNING)
torch.set_num_threads(1)
import kornia.augmentation as K, kornia.geometry as KG
img = torch.rand(1, 3, 32, 32)
class T(torch.nn.Module):
    def __init__(self, fn): super().__init__(); self.fn = fn
    def forward(self, x): return self.fn(x)
H = torch.eye(3)[None]; H[0, 0, 1] = 0.1
for name, m in {"K.RandomAffine(degrees=30)": K.RandomAffine(degrees=30.0, p=1.0),
                "K.RandomResizedCrop((24, 24))": K.RandomResizedCrop((24, 24)),
                "KG.warp_perspective": T(lambda x: KG.warp_perspective(x, H, (32, 32)))}.items():
    try:
        ep = torch.export.export(m, (img,)); out = ep.module()(img)
        print(f"{name}: torch.export ok, runs: {tuple(out.shape)}")
    except Exception as e:
        print(f"{name}: torch.export fails: {type(e).__name__}: {str(e).splitlines()[0][:160]}")
