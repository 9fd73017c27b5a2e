// Memory regions from a user crate: each region's static arena in its link
// section (`take`), arenas of your own (`new`), larger ones (`new_in`),
// their sizes as constants, and `32K`-style budgets; `arena_limit = 48K`
// is 48 KiB too.
#![deny(warnings)]

tinyaot::include_model!(
    pub Kws = "../../models/ds_cnn_kws_int8.tflite",
    regions = [dtcm(".dtcm", 2K), sram(".sram2", 64K)]
);
tinyaot::include_model!(Plain = "../../models/fc_chain_int8.tflite", regions = [ram("16K")]);
tinyaot::include_model!(Limited = "../../models/fc_chain_int8.tflite", arena_limit = 48K);
// The weights copied into the fast region whenever the model is made.
tinyaot::include_model!(
    Copied = "../../models/ds_cnn_kws_int8.tflite",
    regions = [dtcm(".dtcm", 8K), sram(64K)],
    copy_weights = dtcm(6K)
);

fn main() {
    assert_eq!(Kws::ARENA_SIZE, Kws::DTCM_SIZE + Kws::SRAM_SIZE);
    assert!(Kws::DTCM_SIZE <= 2048 && Kws::DTCM_SIZE > 0 && Kws::SRAM_SIZE > 0);
    assert_eq!(Kws::PLAN.regions.len(), 2);
    assert_eq!(Kws::PLAN.regions[0].section, Some(".dtcm"));
    assert_eq!(Kws::PLAN.regions[1].budget, 64 * 1024);
    assert!(Kws::PLAN.buffers.iter().all(|b| b.offset + b.size <= Kws::PLAN.regions[b.region].size));
    let mut model = Kws::take().unwrap();
    model.input_mut().fill(0);
    model.invoke();
    let mut dtcm = tinyaot::Arena::<{ Kws::DTCM_SIZE }>::new();
    let mut sram = Box::new(tinyaot::Arena::<{ Kws::SRAM_SIZE }>::new());
    Kws::new(&mut dtcm, &mut sram).invoke();
    let (mut a, mut b) = (tinyaot::Arena::<4096>::new(), Box::new(tinyaot::Arena::<{ 128 * 1024 }>::new()));
    Kws::new_in(&mut a, &mut b).invoke();
    assert_eq!(Plain::RAM_SIZE, Plain::ARENA_SIZE);
    let mut ram = tinyaot::Arena::<{ Plain::RAM_SIZE }>::new();
    Plain::new(&mut ram).invoke();
    let mut limited = tinyaot::Arena::<{ Limited::ARENA_SIZE }>::new();
    Limited::new(&mut limited).invoke();
    let copied = Copied::PLAN.buffers.iter().filter(|b| b.name.starts_with("weights of op")).count();
    assert!(copied > 0 && Copied::DTCM_SIZE > 4096);
    let (mut dtcm, mut sram) = (tinyaot::Arena::<{ Copied::DTCM_SIZE }>::new(), tinyaot::Arena::<{ Copied::SRAM_SIZE }>::new());
    let mut model = Copied::new(&mut dtcm, &mut sram);
    model.input_mut().fill(3);
    model.invoke();
    let want = *model.output();
    // Another model on the same arena in between: the copies are made anew.
    dtcm.0.fill(0x55);
    let mut model = Copied::new(&mut dtcm, &mut sram);
    model.input_mut().fill(3);
    model.invoke();
    assert_eq!(*model.output(), want);
}
