# doc
# End of doc/local.mk
