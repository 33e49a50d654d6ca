"""Hand-written torchmetrics cases: the public operators whose own examples give no case that the
harvest can keep (docs/harvest.md), each with the reason in a comment.

- The SSIM family and three image / segmentation metrics: their examples use 3x3x256x256 images or
  larger, over the harvest's size cap (--max-tensor-mib 1). Here at the smallest sizes they accept
  (multi-scale SSIM with its 11-pixel Gaussian over 5 scales needs more than 160 pixels a side).
- The aggregation metrics (MeanMetric, SumMetric, MaxMetric, MinMetric, CatMetric): their examples
  call `update` with Python numbers and read `compute`, never the module itself.
- functional confusion_matrix, retrieval_recall, retrieval_fall_out and the sliding-window RMSE:
  their examples reach them through another name or not from the example's own code.
- The tensor utilities torchmetrics exports (dim_zero_*, reduce, class_reduce): no examples.
"""

import torchmetrics
import torchmetrics.functional.retrieval
import torchmetrics.image
import torchmetrics.segmentation
import torchmetrics.utilities

from opsweep import case
from opsweep.toolkit import rand, randint

_a = rand(1, 3, 64, 64, seed=11)
_b = (_a * 0.8 + 0.1 * rand(1, 3, 64, 64, seed=12))
_big_a = rand(1, 1, 176, 176, seed=13)
_big_b = (_big_a * 0.8 + 0.1 * rand(1, 1, 176, 176, seed=14))
_labels_a, _labels_b = randint(0, 3, 2, 16, 16, seed=15), randint(0, 3, 2, 16, 16, seed=16)
_scores = rand(6, seed=17)
_relevant = randint(0, 2, 6, seed=18)
_values = rand(8, seed=19)

CASES = [
    case("StructuralSimilarityIndexMeasure", "image", torchmetrics.StructuralSimilarityIndexMeasure(data_range=1.0),
         [_a, _b]),
    case("structural_similarity_index_measure", "functional", torchmetrics.functional.structural_similarity_index_measure,
         [_a, _b], kwargs={"data_range": 1.0}),
    case("MultiScaleStructuralSimilarityIndexMeasure", "image",
         torchmetrics.MultiScaleStructuralSimilarityIndexMeasure(data_range=1.0), [_big_a, _big_b]),
    case("multiscale_structural_similarity_index_measure", "functional",
         torchmetrics.functional.multiscale_structural_similarity_index_measure, [_big_a, _big_b],
         kwargs={"data_range": 1.0}),
    case("SpatialCorrelationCoefficient", "image", torchmetrics.image.SpatialCorrelationCoefficient(), [_a, _b]),
    case("VisualInformationFidelity", "image", torchmetrics.image.VisualInformationFidelity(), [_a, _b]),
    case("GeneralizedDiceScore", "segmentation",
         torchmetrics.segmentation.GeneralizedDiceScore(num_classes=3, input_format="index"), [_labels_a, _labels_b]),
    case("MeanIoU", "segmentation", torchmetrics.segmentation.MeanIoU(num_classes=3, input_format="index"),
         [_labels_a, _labels_b]),
    case("MeanMetric", "aggregation", torchmetrics.MeanMetric(), [_values]),
    case("SumMetric", "aggregation", torchmetrics.SumMetric(), [_values]),
    case("MaxMetric", "aggregation", torchmetrics.MaxMetric(), [_values]),
    case("MinMetric", "aggregation", torchmetrics.MinMetric(), [_values]),
    case("CatMetric", "aggregation", torchmetrics.CatMetric(), [_values]),
    case("confusion_matrix", "functional", torchmetrics.functional.confusion_matrix,
         [_labels_a.flatten()[:10], _labels_b.flatten()[:10]], kwargs={"task": "multiclass", "num_classes": 3}),
    case("retrieval_recall", "functional", torchmetrics.functional.retrieval.retrieval_recall, [_scores, _relevant],
         kwargs={"top_k": 2}),
    case("retrieval_fall_out", "functional", torchmetrics.functional.retrieval.retrieval_fall_out,
         [_scores, _relevant], kwargs={"top_k": 2}),
    case("RootMeanSquaredErrorUsingSlidingWindow", "regression",
         torchmetrics.RootMeanSquaredErrorUsingSlidingWindow(window_size=3),
         [rand(1, 3, 16, 16, seed=20), rand(1, 3, 16, 16, seed=21)]),
    case("dim_zero_sum", "utilities", torchmetrics.utilities.dim_zero_sum, [rand(4, 3, seed=22)]),
    case("dim_zero_mean", "utilities", torchmetrics.utilities.dim_zero_mean, [rand(4, 3, seed=23)]),
    case("dim_zero_max", "utilities", torchmetrics.utilities.dim_zero_max, [rand(4, 3, seed=24)]),
    case("dim_zero_min", "utilities", torchmetrics.utilities.dim_zero_min, [rand(4, 3, seed=25)]),
    case("dim_zero_cat", "utilities", torchmetrics.utilities.dim_zero_cat, [rand(4, 3, seed=26)]),
    case("reduce", "utilities", torchmetrics.utilities.reduce, [rand(4, 3, seed=27)],
         kwargs={"reduction": "elementwise_mean"}),
    case("class_reduce", "utilities", torchmetrics.utilities.class_reduce,
         [rand(3, seed=28, low=1.0, high=2.0), rand(3, seed=29, low=2.0, high=4.0), rand(3, seed=30, low=1.0, high=2.0)],
         kwargs={"class_reduction": "weighted"}),
]
