//! The builtin-options tables operators read, by name: each module is one
//! table of the TFLite schema (`schema.fbs`), with its `BuiltinOptions`
//! union tag and the ids of the fields tinyaot reads (field ids count from
//! 0 in declaration order, deprecated fields included).

/// `Conv2DOptions`.
pub mod conv_2d {
    /// Union tag.
    pub const TAG: u8 = 1;
    /// `padding: Padding`.
    pub const PADDING: u16 = 0;
    /// `stride_w: int`.
    pub const STRIDE_W: u16 = 1;
    /// `stride_h: int`.
    pub const STRIDE_H: u16 = 2;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 3;
    /// `dilation_w_factor: int = 1`.
    pub const DILATION_W: u16 = 4;
    /// `dilation_h_factor: int = 1`.
    pub const DILATION_H: u16 = 5;
}

/// `DepthwiseConv2DOptions`.
pub mod depthwise_conv_2d {
    /// Union tag.
    pub const TAG: u8 = 2;
    /// `padding: Padding`.
    pub const PADDING: u16 = 0;
    /// `stride_w: int`.
    pub const STRIDE_W: u16 = 1;
    /// `stride_h: int`.
    pub const STRIDE_H: u16 = 2;
    /// `depth_multiplier: int`.
    pub const DEPTH_MULTIPLIER: u16 = 3;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 4;
    /// `dilation_w_factor: int = 1`.
    pub const DILATION_W: u16 = 5;
    /// `dilation_h_factor: int = 1`.
    pub const DILATION_H: u16 = 6;
}

/// `Pool2DOptions`.
pub mod pool_2d {
    /// Union tag.
    pub const TAG: u8 = 5;
    /// `padding: Padding`.
    pub const PADDING: u16 = 0;
    /// `stride_w: int`.
    pub const STRIDE_W: u16 = 1;
    /// `stride_h: int`.
    pub const STRIDE_H: u16 = 2;
    /// `filter_width: int`.
    pub const FILTER_WIDTH: u16 = 3;
    /// `filter_height: int`.
    pub const FILTER_HEIGHT: u16 = 4;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 5;
}

/// `SVDFOptions`.
pub mod svdf {
    /// Union tag.
    pub const TAG: u8 = 6;
    /// `rank: int`.
    pub const RANK: u16 = 0;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 1;
    /// `asymmetric_quantize_inputs: bool` (hybrid).
    pub const ASYMMETRIC_QUANTIZE_INPUTS: u16 = 2;
}

/// `FullyConnectedOptions`.
pub mod fully_connected {
    /// Union tag.
    pub const TAG: u8 = 8;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 0;
    /// `weights_format: FullyConnectedOptionsWeightsFormat`.
    pub const WEIGHTS_FORMAT: u16 = 1;
    /// `keep_num_dims: bool`.
    pub const KEEP_NUM_DIMS: u16 = 2;
    /// `asymmetric_quantize_inputs: bool` (hybrid models).
    pub const ASYMMETRIC_QUANTIZE_INPUTS: u16 = 3;
}

/// `SoftmaxOptions`.
pub mod softmax {
    /// Union tag.
    pub const TAG: u8 = 9;
    /// `beta: float`.
    pub const BETA: u16 = 0;
}

/// `ConcatenationOptions`.
pub mod concatenation {
    /// Union tag.
    pub const TAG: u8 = 10;
    /// `axis: int`.
    pub const AXIS: u16 = 0;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 1;
}

/// `AddOptions`, `SubOptions`, `MulOptions`, `DivOptions`: the fused
/// activation is field 0 in each.
pub mod arithmetic {
    /// `AddOptions` union tag.
    pub const ADD_TAG: u8 = 11;
    /// `MulOptions` union tag.
    pub const MUL_TAG: u8 = 21;
    /// `SubOptions` union tag.
    pub const SUB_TAG: u8 = 28;
    /// `DivOptions` union tag.
    pub const DIV_TAG: u8 = 29;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 0;
}

/// `ResizeBilinearOptions`.
pub mod resize_bilinear {
    /// Union tag.
    pub const TAG: u8 = 15;
    /// `align_corners: bool` (after the deprecated `new_height`, `new_width`).
    pub const ALIGN_CORNERS: u16 = 2;
    /// `half_pixel_centers: bool`.
    pub const HALF_PIXEL_CENTERS: u16 = 3;
}

/// `SpaceToDepthOptions` and `DepthToSpaceOptions`.
pub mod space_depth {
    /// `SpaceToDepthOptions` union tag.
    pub const SPACE_TO_DEPTH_TAG: u8 = 19;
    /// `DepthToSpaceOptions` union tag.
    pub const DEPTH_TO_SPACE_TAG: u8 = 94;
    /// `block_size: int`.
    pub const BLOCK_SIZE: u16 = 0;
}

/// `GatherOptions`.
pub mod gather {
    /// Union tag.
    pub const TAG: u8 = 23;
    /// `axis: int`.
    pub const AXIS: u16 = 0;
    /// `batch_dims: int = 0`.
    pub const BATCH_DIMS: u16 = 1;
}

/// `ReducerOptions` (MEAN, SUM, REDUCE_MAX, REDUCE_MIN, ...).
pub mod reducer {
    /// Union tag.
    pub const TAG: u8 = 27;
    /// `keep_dims: bool`.
    pub const KEEP_DIMS: u16 = 0;
}

/// `StridedSliceOptions`.
pub mod strided_slice {
    /// Union tag.
    pub const TAG: u8 = 32;
    /// `begin_mask: int`.
    pub const BEGIN_MASK: u16 = 0;
    /// `end_mask: int`.
    pub const END_MASK: u16 = 1;
    /// `ellipsis_mask: int`.
    pub const ELLIPSIS_MASK: u16 = 2;
    /// `new_axis_mask: int`.
    pub const NEW_AXIS_MASK: u16 = 3;
    /// `shrink_axis_mask: int`.
    pub const SHRINK_AXIS_MASK: u16 = 4;
    /// `offset: bool`.
    pub const OFFSET: u16 = 5;
}

/// `TransposeConvOptions`.
pub mod transpose_conv {
    /// Union tag.
    pub const TAG: u8 = 49;
    /// `padding: Padding`.
    pub const PADDING: u16 = 0;
    /// `stride_w: int`.
    pub const STRIDE_W: u16 = 1;
    /// `stride_h: int`.
    pub const STRIDE_H: u16 = 2;
    /// `fused_activation_function = NONE`.
    pub const FUSED_ACTIVATION: u16 = 3;
}

/// `PackOptions`.
pub mod pack {
    /// Union tag.
    pub const TAG: u8 = 59;
    /// `axis: int` (after `values_count`).
    pub const AXIS: u16 = 1;
}

/// `UnpackOptions`.
pub mod unpack {
    /// Union tag.
    pub const TAG: u8 = 64;
    /// `axis: int` (after `num`).
    pub const AXIS: u16 = 1;
}

/// `UnidirectionalSequenceLSTMOptions`.
pub mod unidirectional_sequence_lstm {
    /// Union tag.
    pub const TAG: u8 = 71;
    /// `fused_activation_function`.
    pub const FUSED_ACTIVATION: u16 = 0;
    /// `cell_clip: float`.
    pub const CELL_CLIP: u16 = 1;
    /// `time_major: bool` (after `proj_clip`).
    pub const TIME_MAJOR: u16 = 3;
    /// `asymmetric_quantize_inputs: bool` (hybrid LSTMs).
    pub const ASYMMETRIC_QUANTIZE_INPUTS: u16 = 4;
    /// `diagonal_recurrent_tensors: bool` (recurrent weights as vectors).
    pub const DIAGONAL_RECURRENT_TENSORS: u16 = 5;
}

/// `ResizeNearestNeighborOptions`.
pub mod resize_nearest_neighbor {
    /// Union tag.
    pub const TAG: u8 = 74;
    /// `align_corners: bool`.
    pub const ALIGN_CORNERS: u16 = 0;
    /// `half_pixel_centers: bool`.
    pub const HALF_PIXEL_CENTERS: u16 = 1;
}

/// `LeakyReluOptions`.
pub mod leaky_relu {
    /// Union tag.
    pub const TAG: u8 = 75;
    /// `alpha: float`.
    pub const ALPHA: u16 = 0;
}

/// `MirrorPadOptions`.
pub mod mirror_pad {
    /// Union tag.
    pub const TAG: u8 = 77;
    /// `mode: MirrorPadMode` (REFLECT = 0, SYMMETRIC = 1).
    pub const MODE: u16 = 0;
}

/// `BatchMatMulOptions`.
pub mod batch_matmul {
    /// Union tag.
    pub const TAG: u8 = 101;
    /// `adj_x: bool`: the left operand is stored transposed.
    pub const ADJ_X: u16 = 0;
    /// `adj_y: bool`: the right operand is stored transposed.
    pub const ADJ_Y: u16 = 1;
    /// `asymmetric_quantize_inputs: bool`: a hybrid op's float input rows
    /// quantized with a zero point.
    pub const ASYMMETRIC_QUANTIZE_INPUTS: u16 = 2;
}

/// `CumsumOptions`.
pub mod cumsum {
    /// Union tag.
    pub const TAG: u8 = 102;
    /// `exclusive: bool`: each sum leaves out its own element.
    pub const EXCLUSIVE: u16 = 0;
    /// `reverse: bool`: sums run from the end of the axis.
    pub const REVERSE: u16 = 1;
}

/// `L2NormOptions`.
pub mod l2_norm {
    /// Union tag.
    pub const TAG: u8 = 12;
    /// `fused_activation_function` (TFLM takes NONE only).
    pub const FUSED_ACTIVATION: u16 = 0;
}

/// `CallOnceOptions`.
pub mod call_once {
    /// Union tag.
    pub const TAG: u8 = 103;
    /// `init_subgraph_index: int`.
    pub const INIT_SUBGRAPH_INDEX: u16 = 0;
}

/// `VarHandleOptions`.
pub mod var_handle {
    /// Union tag.
    pub const TAG: u8 = 111;
    /// `container: string`.
    pub const CONTAINER: u16 = 0;
    /// `shared_name: string`.
    pub const SHARED_NAME: u16 = 1;
}

/// `IfOptions`.
pub mod if_ {
    /// Union tag.
    pub const TAG: u8 = 92;
    /// `then_subgraph_index: int`.
    pub const THEN_SUBGRAPH_INDEX: u16 = 0;
    /// `else_subgraph_index: int`.
    pub const ELSE_SUBGRAPH_INDEX: u16 = 1;
}

/// `WhileOptions`.
pub mod while_ {
    /// Union tag.
    pub const TAG: u8 = 93;
    /// `cond_subgraph_index: int`.
    pub const COND_SUBGRAPH_INDEX: u16 = 0;
    /// `body_subgraph_index: int`.
    pub const BODY_SUBGRAPH_INDEX: u16 = 1;
}

/// `GeluOptions`.
pub mod gelu {
    /// Union tag.
    pub const TAG: u8 = 116;
    /// `approximate: bool`.
    pub const APPROXIMATE: u16 = 0;
}
