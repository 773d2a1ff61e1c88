//! Reductions: whole-tensor and along-a-dimension sums, products, means, extremes, norms and
//! variances, cumulative ops, renorm, and the order statistics. Along a dimension the walk goes
//! lane by lane (when the reduced dimension is the innermost in memory) or slab by slab into
//! per-lane accumulators (otherwise), so memory is read in order.

pub mod accumulate;
pub mod along;
pub mod extreme;
pub mod histogram;
pub mod plan;
pub mod sort;
pub mod whole;
