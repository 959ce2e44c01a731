# src/conf: see the module's header.
# End of src/conf/local.mk
