# clients
# End of clients/local.mk
