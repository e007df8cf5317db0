"""ReasoningBank (Ouyang et al.): strategy items distilled from successes and failures."""
