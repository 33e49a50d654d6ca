"""The bundled survey of torchvision (0.28.0): transforms v2 (every functional kernel for each input
type it takes, the dispatchers on each tv_tensor, the transform classes), torchvision.ops and the
models of torchvision.models.list_models(). It needs torchvision's own environment
(scripts/torch-env.sh torchvision-0.28.0): PyPI's torchvision loads its operators only next to
PyPI's torch."""

LIBRARY = "torchvision"
