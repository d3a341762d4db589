-- resnext101_32x8d.lua — ResNeXt-101 (Xie et al. 2017, 32x8d: 32 groups of
-- 8 channels in the first stage's 3x3 convs), ImageNet 224x224: resnet50.lua's
-- bottlenecks, 23 in the third stage, with their 3x3 convs grouped and four
-- times as wide.
-- Published: torchvision's resnext101_32x8d, 88,791,336 parameters in 314
-- tensors, 16.41 GFLOPS (multiply-adds).
return { variant_of = "resnet50", options = { depth = 101, groups = 32, width_per_group = 8 } }
