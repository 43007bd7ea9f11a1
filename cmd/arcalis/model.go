package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"arcalis/tb"
)

// modelEnv names the model library when --model does not.
const modelEnv = "ARCALIS_MODEL"

// modelFlag is the --model flag of every command that loads the model.
func modelFlag() cli.Flag {
	return &cli.StringFlag{Name: "model", TakesFile: true,
		Usage: "Verilated model library (default: $" + modelEnv + ", else " + tb.ModelLib + " of this checkout)"}
}

// modelPath is the model library the command should load: --model, else
// $ARCALIS_MODEL, else the checkout's build/model/libvmodel.so. It is
// checked here so that a missing file is one clear input error naming the
// path tried and where it came from; `make verilate` is suggested only for
// the default path, the one it builds. flag is the path if --model named
// it, for replay commands (which find $ARCALIS_MODEL or the default alone).
func modelPath(c *cli.Context) (path, flag string, err error) {
	path, from := c.String("model"), "--model"
	if path == "" {
		path, from = os.Getenv(modelEnv), modelEnv
	}
	if path == "" {
		path, from = tb.FindModel(), ""
	}
	_, err = os.Stat(path)
	if err == nil {
		if from == "--model" {
			return path, path, nil
		}
		return path, "", nil
	}
	shown := path
	if abs, aerr := filepath.Abs(path); aerr == nil {
		shown = abs
	}
	if from == "" {
		return "", "", fmt.Errorf("%s: Verilated model %s not found: build it with `make verilate` (or name one with --model or $%s)", commandName(c), shown, modelEnv)
	}
	if os.IsNotExist(err) {
		return "", "", fmt.Errorf("%s: Verilated model %s (from %s) not found", commandName(c), shown, from)
	}
	return "", "", fmt.Errorf("%s: Verilated model %s (from %s): %v", commandName(c), shown, from, err)
}
