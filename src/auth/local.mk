# src/auth: see the module's header.
# End of src/auth/local.mk
