# etc
# End of etc/local.mk
