-- lstm-wikitext2.lua — the LSTM language model of PowerSGD's experiments
-- (Vogels et al. 2019; epfml/powersgd paper-code/tasks/language_modeling:
-- PyTorch's word_language_model RNNModel, 3 LSTM layers of 650 with an
-- embedding of 650 tied to the decoder, WikiText-2 lower-cased and
-- tokenized by spaCy: 28,869 words). A sample is one sequence of `seq`
-- tokens (workload.model_options.seq; the code's rnn_bptt_len 30 by
-- default). FLOPs: 2 per weight per token (an LSTM layer's four gates read
-- its input and its state: 4 x 650 x (650 + 650) weights), the decoder
-- 650 x 28,869 per token; backward twice forward. Published: 28,949,319
-- parameters (the paper's table of its tasks), what this counts.
local options = { seq = 30 } -- workload.model_options
local seq = hearsay.option(... or {}, options, "seq", 1, 100000, "tokens")
local vocab, h, n_layers = 28869, 650, 3
local layers = {}
-- matrices: the embedding (vocab, h) and each layer's weight_ih and
-- weight_hh (4h, h); biases are vectors
local function add(name, params, flops, tensors, matrices)
  layers[#layers + 1] = { name = name, params = params, fwd_flops = flops, bwd_flops = 2 * flops, tensors = tensors,
                          matrices = matrices or {} }
end
-- The embedding is looked up (no multiply-adds); its weight is the
-- decoder's too, one tensor.
add("encoder", vocab * h, 0, 1, { { vocab, h } })
for l = 0, n_layers - 1 do
  -- weight_ih, weight_hh, bias_ih, bias_hh
  add("rnn.l" .. l, 4 * h * (h + h) + 2 * 4 * h, 2 * 4 * h * (h + h) * seq, 4, { { 4 * h, h }, { 4 * h, h } })
end
-- The decoder's weight is the encoder's; its bias is its own.
add("decoder", vocab, 2 * h * vocab * seq, 1)
return { name = "lstm-wikitext2", published_params = 28949319, layers = layers, options = options }
