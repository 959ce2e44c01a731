# src/kube: see the module's header.
# End of src/kube/local.mk
