-- vit_b_16.lua — ViT (Dosovitskiy et al. 2021) as torchvision writes it:
-- patches of `patch` pixels (a conv of that stride) into (image / patch)^2
-- tokens of d_model plus a class token, learned position embeddings,
-- pre-norm encoder layers (MLP of `mlp`), a final layer norm and a
-- d_model -> classes head; by default ViT-B/16 at 224x224 (12 layers of
-- 768, MLP 3072, 12 heads), ViT-L/16 as a variant (vit_l_16.lua).
-- workload.model_options: layers, d_model, mlp, patch, image, classes.
-- FLOPs: 2 per weight per token, plus attention scores and weighted sums
-- (2 x 2 x tokens^2 x d_model a layer); backward twice forward. Published:
-- 86M params (Table 1); torchvision's vit_b_16: 86,567,656 parameters in
-- 152 tensors, 17.56 GFLOPS (multiply-adds).
local options = { layers = 12, d_model = 768, mlp = 3072, patch = 16, image = 224, classes = 1000 }
local given = ... or {}
local function whole(name, lo, hi) return hearsay.option(given, options, name, lo, hi) end
local n_layers, d, mlp = whole("layers", 1, 1000), whole("d_model", 1, 100000), whole("mlp", 1, 1000000)
local patch, image, classes = whole("patch", 1, 4096), whole("image", 1, 65536), whole("classes", 1, 1000000)
if image % patch ~= 0 then error("model_options.image must be a multiple of patch", 0) end
local side = image // patch
local tokens = side * side + 1
local layers = {}
-- matrices: the layer's tensors of two or more dimensions, shape[0] rows
-- by the rest (nn.Linear's (out, in), the patch conv's (d, 3, p, p), the
-- class token (1, 1, d) and position embedding (1, tokens, d)); the rest
-- (biases, LayerNorms) are vectors
local function add(name, params, flops, tensors, matrices)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors,
                          matrices = matrices or {} }
end
-- conv_proj's weight and bias, class_token, encoder.pos_embedding
add("conv_proj+class_token+pos_embedding", 3 * patch * patch * d + d + d + tokens * d,
    2 * 3 * patch * patch * d * (tokens - 1), 4, { { d, 3 * patch * patch }, { 1, d }, { 1, tokens * d } })
for l = 0, n_layers - 1 do
  local p = "encoder.layers." .. l .. "."
  add(p .. "ln_1+self_attention.in_proj", 2 * d + 3 * d * d + 3 * d, 2 * 3 * d * d * tokens, 4, { { 3 * d, d } })
  add(p .. "self_attention.scores", 0, 2 * 2 * tokens * tokens * d, 0)
  add(p .. "self_attention.out_proj", d * d + d, 2 * d * d * tokens, 2, { { d, d } })
  add(p .. "ln_2+mlp.0", 2 * d + d * mlp + mlp, 2 * d * mlp * tokens, 4, { { mlp, d } })
  add(p .. "mlp.3", mlp * d + d, 2 * mlp * d * tokens, 2, { { d, mlp } })
end
-- The head reads the class token alone.
add("encoder.ln+heads.head", 2 * d + d * classes + classes, 2 * d * classes, 4, { { classes, d } })
return { name = "vit", layers = layers, options = options }
