# concepts: cropping, object extraction, select largest, crop to bounding box
# description: The input has several single-coloured shapes on black. The output is the
# largest shape (most cells), cropped to its bounding box.
from memory_helpers import crop_to_bounding_box, extract_objects, select_object_by_criterion


def transform(grid):
    objects = extract_objects(grid, background=0, connectivity=8, by_color=True)
    largest = select_object_by_criterion(objects, key="size", mode="max")
    return crop_to_bounding_box(grid, largest, keep_only_object=True)
