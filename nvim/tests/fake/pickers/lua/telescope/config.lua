return { values = { generic_sorter = function() return {} end } }
