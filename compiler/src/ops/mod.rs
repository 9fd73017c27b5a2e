//! Operators: one file each (or one per family of operators that share
//! their code), owning its options, shape and dtype rules, compile-time
//! constants, kernel variants and codegen. The registry
//! (`lowering::registry`) maps builtin codes to their `lower` functions;
//! what several operators share lives in `lowering/`.

pub(crate) mod add_n;
pub(crate) mod arg_max;
pub(crate) mod batch_matmul;
pub(crate) mod binary;
pub(crate) mod broadcast_args;
pub(crate) mod cast;
pub(crate) mod comparison;
pub(crate) mod concatenation;
pub(crate) mod conv_2d;
pub(crate) mod cumsum;
pub(crate) mod depthwise_conv_2d;
pub(crate) mod dequantize;
pub(crate) mod dynamic_update_slice;
pub(crate) mod elu;
pub(crate) mod embedding_lookup;
pub(crate) mod fill;
pub(crate) mod fully_connected;
pub(crate) mod gather;
pub(crate) mod gather_nd;
pub(crate) mod hard_swish;
pub(crate) mod l2_normalization;
pub(crate) mod leaky_relu;
pub(crate) mod log_softmax;
pub(crate) mod logical;
pub(crate) mod logistic;
pub(crate) mod lstm;
pub(crate) mod math;
pub(crate) mod mean;
pub(crate) mod mirror_pad;
pub(crate) mod pack;
pub(crate) mod pad;
pub(crate) mod pool_2d;
pub(crate) mod quantize;
pub(crate) mod relu;
pub(crate) mod reshape;
pub(crate) mod resize_bilinear;
pub(crate) mod resize_nearest_neighbor;
pub(crate) mod reverse_v2;
pub(crate) mod select;
pub(crate) mod shape;
pub(crate) mod signal_energy;
pub(crate) mod signal_fft_auto_scale;
pub(crate) mod signal_filter_bank_square_root;
pub(crate) mod signal_window;
pub(crate) mod slice;
pub(crate) mod softmax;
pub(crate) mod space_batch;
pub(crate) mod space_depth;
pub(crate) mod split;
pub(crate) mod svdf;
pub(crate) mod tanh;
pub(crate) mod transpose;
pub(crate) mod transpose_conv;
