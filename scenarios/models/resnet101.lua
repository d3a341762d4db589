-- resnet101.lua — ResNet-101 (He et al. 2016, Table 1), ImageNet 224x224:
-- resnet50.lua's bottlenecks with 23 in the third stage instead of 6.
-- Published: 44.5M params, 7.6e9 multiply-adds (Table 1 counts "FLOPs" as
-- multiply-adds); torchvision's resnet101: 44,549,160 parameters in 314
-- tensors (104 convs x 3, fc 2), 7.80 GFLOPS.
return { variant_of = "resnet50", options = { depth = 101 } }
