# src/proto: see the module's header.
# End of src/proto/local.mk
