-- bert-large.lua — BERT-Large (Devlin et al. 2019): bert-base.lua at 24
-- layers of 1024, FFN 4096 (16 heads). Published: 340M (336.2M counted
-- without the next-sentence head).
return { variant_of = "bert-base", options = { layers = 24, hidden = 1024, ffn = 4096 } }
