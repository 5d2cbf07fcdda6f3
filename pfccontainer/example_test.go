package pfccontainer_test

import (
	"fmt"

	"github.com/pfcsdk/pfc-go/pfc"
	"github.com/pfcsdk/pfc-go/pfccontainer"
)

func ExampleCorrectionOptions_Plan() {
	o := pfccontainer.NewCorrection().WithPreset("School and Sports").WithOutput(pfc.OutputJPEG, 85)
	o.Height, o.Scale = 1080, 50 // two resize parameters: only height applies
	p := o.Plan()
	fmt.Println(p.Resize, p.ResizeValue)
	for _, ig := range p.Ignored {
		fmt.Println("ignored:", ig)
	}
	q, err := o.Query()
	fmt.Println(q, err)
	// Output:
	// height 1080
	// ignored: scale: height takes priority (use one resize parameter per request)
	// height=1080&outputQuality=85&outputType=JPEG&preset=School%20and%20Sports&scale=50 <nil>
}

func ExampleCorrectionOptions_Validate() {
	o := &pfccontainer.CorrectionOptions{OutputQuality: 39, Width: 20, Skip: "photos"}
	fmt.Println(o.Validate())
	// Output:
	// pfc: invalid parameters: outputQuality: must be between 40 and 100, got 39; width: must be between 32 and 10000 pixels, got 20; skip: must be one of clipart, legacy, none, got "photos"
}
