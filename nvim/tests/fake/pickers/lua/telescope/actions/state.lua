return {
  get_current_picker = function() return _G.fake_picker.current.picker end,
  get_selected_entry = function() return nil end,
}
