# sql
# End of sql/local.mk
