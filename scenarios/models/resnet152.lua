-- resnet152.lua — ResNet-152 (He et al. 2016, Table 1), ImageNet 224x224:
-- resnet50.lua's bottlenecks, [3, 8, 36, 3] a stage. Published: 11.3e9
-- multiply-adds; torchvision's resnet152: 60,192,808 parameters in 467
-- tensors (155 convs x 3, fc 2), 11.51 GFLOPS.
return { variant_of = "resnet50", options = { depth = 152 } }
