# contrib
# End of contrib/local.mk
