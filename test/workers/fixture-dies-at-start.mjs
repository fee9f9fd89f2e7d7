// A worker entry that dies before it is ready, as one whose code fails to load would.
process.exit(3);
