package record

// Version is the metis version written into cassette provenance. Release
// builds set it with -ldflags "-X github.com/metis-llm/metis/harness/record.Version=v1.2.3".
var Version = "v0.1.0-dev"
