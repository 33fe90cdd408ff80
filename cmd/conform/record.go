package main

import (
	"context"
	"io"
	"os"

	"github.com/metis-llm/metis/internal/recordcmd"
)

// cmdRecord is `conform record` and `conform record import`: package
// internal/recordcmd, which the record binary runs too.
func cmdRecord(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return recordcmd.Run(ctx, "conform record", args, os.Getenv, stdout, stderr)
}
