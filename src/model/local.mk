# src/model: see the module's header.
# End of src/model/local.mk
