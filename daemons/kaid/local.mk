# daemons/kaid
# End of daemons/kaid/local.mk
