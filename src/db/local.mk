# src/db: see the module's header.
# End of src/db/local.mk
